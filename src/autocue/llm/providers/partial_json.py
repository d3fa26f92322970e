"""Parse the JSON arguments of a tool call while they are still streaming.

``parse_partial_json(text)`` returns the best object the prefix ``text`` describes so far,
through ``pydantic_core.from_json(..., allow_partial="trailing-strings")``: complete JSON
parses normally; in a cut-off prefix an unfinished key or literal is dropped and an open
string is kept as far as it goes. It never raises: text that cannot be read as (the start of)
an object gives ``{}``. ``parse_json_arguments`` is the strict form for the final arguments
and reports what was wrong.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic_core import from_json


def parse_partial_json(text: str) -> dict[str, Any]:
    """The arguments object described by the (possibly incomplete) JSON ``text``."""
    if not text or not text.strip():
        return {}
    try:
        v = orjson.loads(text)  # the common case: the arguments are complete
    except orjson.JSONDecodeError:
        try:
            v = from_json(text, allow_partial="trailing-strings")
        except ValueError:
            return {}
    return v if isinstance(v, dict) else {}


def parse_json_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """Final tool arguments: ``(args, None)``, or ``(best_effort_args, problem)`` when ``text``
    is not a complete JSON object."""
    if not text or not text.strip():
        return {}, None
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        return parse_partial_json(text), f"tool arguments are not valid JSON ({e}): {text[:200]!r}"
    if not isinstance(v, dict):
        return {}, f"tool arguments must be a JSON object, got {type(v).__name__}: {text[:200]!r}"
    return v, None


__all__ = ["parse_json_arguments", "parse_partial_json"]
