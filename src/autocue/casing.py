"""The one camelCase / snake_case helper.

pi writes camelCase keys (``baseUrl``, ``repeatMode``, ``isError``); autocue's Python names are
snake_case, and both spellings are accepted wherever a user writes such a dict. Conversion is
never blanket: only keys a caller names in an explicit list change spelling, every other key
(an extension's own, a tool argument) is kept exactly as written.

    to_camel("skill_paths")                        # 'skillPaths'
    to_snake("contextWindow")                      # 'context_window'
    snake_keys({"baseUrl": u, "x-y": 1}, {"base_url"})   # {'base_url': u, 'x-y': 1}
    camel_keys({"repeat_gap": 3}, {"repeatGap"})         # {'repeatGap': 3}
    field(result, "is_error")                      # result["is_error"] or result["isError"],
                                                   # or result.is_error; MISSING when absent
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["MISSING", "camel_keys", "field", "to_camel", "to_snake", "snake_keys"]

_UPPER = re.compile(r"(?<=[a-z0-9])([A-Z])")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final[Any] = _Missing()
"""What :func:`field` returns for a field that is not there (falsy; compare with ``is``)."""


def to_camel(name: str) -> str:
    """``skill_paths`` → ``skillPaths`` (a name without ``_`` is returned as it is)."""
    if "_" not in name:
        return name
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_snake(name: str) -> str:
    """``contextWindow`` → ``context_window`` (a name without capitals is returned as it is)."""
    return _UPPER.sub(r"_\1", name).lower() if not name.islower() else name


def snake_keys(d: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """``d`` with the camelCase spelling of each ``known`` snake_case key renamed to it."""
    rename = {to_camel(k): k for k in known}
    return {rename.get(k, k): v for k, v in d.items()}


def camel_keys(d: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """``d`` with the snake_case spelling of each ``known`` camelCase key renamed to it."""
    rename = {to_snake(k): k for k in known}
    return {rename.get(k, k): v for k, v in d.items()}


def field(obj: Any, name: str) -> Any:
    """Field ``name`` (snake_case) of a dict (either spelling) or of an object; else ``MISSING``."""
    if type(obj) is dict or isinstance(obj, Mapping):  # the plain-dict test first: hook results on every call
        if name in obj:
            return obj[name]
        return obj.get(to_camel(name), MISSING)
    return getattr(obj, name, MISSING)
