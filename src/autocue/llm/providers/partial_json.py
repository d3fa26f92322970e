"""Parse the JSON arguments of a tool call while they are still streaming.

``parse_partial_json(text)`` returns the best object the prefix ``text`` describes so far:
complete JSON parses normally; a cut-off prefix is repaired by dropping an unfinished key or
literal and closing open strings, arrays and objects. It never raises: text that cannot be
read as (the start of) an object gives ``{}``. ``parse_json_arguments`` is the strict form for
the final arguments and reports what was wrong.
"""

from __future__ import annotations

from typing import Any

import orjson


def parse_partial_json(text: str) -> dict[str, Any]:
    """The arguments object described by the (possibly incomplete) JSON ``text``."""
    if not text or not text.strip():
        return {}
    try:
        v = orjson.loads(text)
        return v if isinstance(v, dict) else {}
    except orjson.JSONDecodeError:
        pass
    repaired = _repair(text)
    if repaired is None:
        return {}
    try:
        v = orjson.loads(repaired)
    except orjson.JSONDecodeError:
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


def _repair(text: str) -> str | None:
    """Close what is open in ``text``; ``None`` when it does not start an object or array."""
    s = text.strip()
    if not s or s[0] not in "{[":
        return None
    stack: list[str] = []
    in_str = False
    esc = False
    # Position after the last point where the prefix was a complete value inside its container
    # ("safe cut"): used to drop a dangling key, colon, comma or half literal.
    for ch in s:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    out = s
    if in_str:
        if esc:
            out = out[:-1]
        # Drop a half-written \uXXXX escape.
        bs = out.rfind("\\u")
        if bs >= 0 and bs >= len(out) - 5 and '"' not in out[bs:]:
            out = out[:bs]
        out += '"'
    out = _trim_dangling(out, stack)
    for opener in reversed(stack):
        out += "}" if opener == "{" else "]"
    return out


def _trim_dangling(out: str, stack: list[str]) -> str:
    """Remove a trailing comma, a key without a value, or an unfinished literal."""
    while True:
        t = out.rstrip()
        if not t:
            return t
        last = t[-1]
        if last == ",":
            out = t[:-1]
            continue
        if last == ":":
            # `"key":` with no value: drop the key too.
            out = _drop_last_key(t[:-1])
            continue
        if last == '"' and stack and stack[-1] == "{" and _is_key_position(t):
            out = _drop_last_key(t)
            continue
        # An unfinished bare literal: true/false/null/number prefix.
        i = len(t)
        while i > 0 and (t[i - 1].isalnum() or t[i - 1] in "+-."):
            i -= 1
        word = t[i:]
        if word and not _complete_literal(word):
            out = t[:i]
            continue
        return t


def _complete_literal(word: str) -> bool:
    if word in ("true", "false", "null"):
        return True
    try:
        float(word)
    except ValueError:
        return False
    return not word.endswith((".", "e", "E", "-", "+"))


def _is_key_position(t: str) -> bool:
    """Whether the string ending ``t`` is an object key (preceded by ``{`` or ``,``)."""
    start = _string_start(t)
    if start is None:
        return False
    before = t[:start].rstrip()
    return bool(before) and before[-1] in "{,"


def _string_start(t: str) -> int | None:
    """Index of the opening quote of the string literal that ends ``t``."""
    i = len(t) - 2
    while i >= 0:
        if t[i] == '"':
            # Count preceding backslashes.
            j = i - 1
            n = 0
            while j >= 0 and t[j] == "\\":
                n += 1
                j -= 1
            if n % 2 == 0:
                return i
        i -= 1
    return None


def _drop_last_key(t: str) -> str:
    t = t.rstrip()
    start = _string_start(t) if t.endswith('"') else None
    if start is None:
        return t
    return t[:start]


__all__ = ["parse_json_arguments", "parse_partial_json"]
