"""What makes an API request malformed: checked before the server acts on it, so a bad
request gets an API-shaped 400 naming the key (``messages[2].content[0].type``) instead of
reaching code that trusts the body's shape.

Checked for the API of the route: the body is a JSON object nested at most ``MAX_DEPTH``
levels; the system prompt fields every API's reader reads are text; then the API's own checks
(``WireApi.validate``): ``model`` a string, ``stream`` a boolean, token limits integers, the
history (``messages``, ``input``, ``contents``) in the API's shape, with known roles, content
parts of known types and the ids and names tool calls and results need; ``tools`` a list of
objects. Optional fields may be ``null`` or absent. Anything else (extra fields, unknown tool
types, new Responses item types, beta fields) passes, as the real APIs accept what real agents
send.

A session's history is append-only: ``start`` says how many leading history items were
checked already (by an earlier request of the session); only the others are walked.
"""

from __future__ import annotations

from typing import Any

from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import WireApi

MAX_DEPTH = 100
"""The deepest JSON nesting a request may have (real requests, tool schemas included, stay
far below)."""
_PROMPT_KEYS = ("system", "instructions", "systemInstruction", "system_instruction")


def problem(wire: WireApi, body: dict[str, Any], raw: bytes | None = None, start: int = 0) -> str | None:
    """Why ``body`` is not a well-formed request of ``wire``'s API, or None. ``raw``, the bytes
    ``body`` was parsed from, lets a body with fewer brackets than ``MAX_DEPTH`` skip the
    nesting walk (it cannot nest deeper than it has brackets). ``start``: the history items
    before it were checked already (the nesting walk then takes the top-level fields and the
    items from ``start`` on)."""
    key = wire.history_key
    history = body.get(key)
    items = history[start:] if start and type(history) is list else history
    flat = type(items) is list and wire.flat_items(items)
    # counting the brackets of a whole body costs more than walking a few new items
    if start or raw is None or raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:
        walk = {k: v for k, v in body.items() if k != key}
        if not flat and items is not None:
            walk[key] = items
        if _too_deep(walk):
            return f"malformed {wire.label} request: JSON nested deeper than {MAX_DEPTH} levels"
    try:
        _prompts(body)
        wire.validate(body, len(history) if flat and type(history) is list else start)
    except shape.MalformedRequestError as e:
        return f"malformed {wire.label} request: {e}"
    return None


def _too_deep(v: Any) -> bool:
    stack: list[tuple[Any, int]] = [(v, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        x, d = pop()
        if d > MAX_DEPTH:
            return True
        d += 1
        for c in x.values() if type(x) is dict else x:
            t = type(c)
            if t is dict or t is list:
                push((c, d))
    return False


def _prompts(b: dict[str, Any]) -> None:
    """The system prompt fields the server reads in every API (``WireApi.system_text``): a
    string, a Content object (``{"parts": [...]}``), a text block or an array of those; each
    API's own check is stricter where the API defines the field."""
    for key in _PROMPT_KEYS:
        v = b.get(key)
        if v is not None:
            _prompt(v, key)


def _prompt(v: Any, where: str, depth: int = 0) -> None:
    if isinstance(v, str):
        return
    if isinstance(v, list) and depth == 0:
        for i, x in enumerate(v):
            _prompt(x, f"{where}[{i}]", 1)
        return
    if not isinstance(v, dict):
        raise shape.fail(where, "a string, a text block or a Content object", v)
    shape.opt(v, "text", str, "a string", where + ".")
    parts = v.get("parts")
    if parts is not None:
        for j, p in enumerate(shape.array(parts, where + ".parts")):
            shape.opt(shape.obj(p, f"{where}.parts[{j}]"), "text", str, "a string", f"{where}.parts[{j}].")
