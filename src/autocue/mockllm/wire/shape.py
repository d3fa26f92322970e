"""The pieces every wire API's request check is built of (``WireApi.validate``): each raises
``MalformedRequestError`` naming the key (``messages[2].content[0].type``) and what it must be."""

from __future__ import annotations

import re
from typing import Any

from autocue.mockllm.errors import MalformedRequestError as MalformedRequestError


def kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "an array" if isinstance(v, list) else "an object"


def fail(where: str, want: str, got: Any) -> MalformedRequestError:
    shown = repr(got)[:60] if isinstance(got, (str, int, float)) and not isinstance(got, bool) else kind(got)
    return MalformedRequestError(f"{where} must be {want}, got {shown}")


def obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise fail(where, "an object", v)
    return v


def array(v: Any, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise fail(where, "an array", v)
    return v


def opt(body: dict[str, Any], key: str, typ: type, want: str, where: str = "") -> None:
    """``key`` is absent, null, or of ``typ`` (a boolean is no integer)."""
    v = body.get(key)
    if v is None:
        return
    if (isinstance(v, bool) and typ is not bool) or not isinstance(v, typ):
        raise fail(where + key, want, v)


def string(body: dict[str, Any], key: str, where: str) -> None:
    """``key`` is required and a string."""
    v = body.get(key)
    if not isinstance(v, str):
        raise fail(f"{where}.{key}", "a string", v) if key in body else \
            MalformedRequestError(f"{where}.{key} is required")


def one_of(v: Any, allowed: tuple[str, ...], where: str, what: str) -> str:
    if not isinstance(v, str):
        raise fail(where, f"a string ({what}: {', '.join(allowed)})", v) if v is not None else \
            MalformedRequestError(f"{where} is required ({what}: {', '.join(allowed)})")
    if v not in allowed:
        raise MalformedRequestError(f"{where}: unknown {what} {v[:60]!r} (expected one of {', '.join(allowed)})")
    return v


def common(b: dict[str, Any], ints: tuple[str, ...]) -> None:
    """``model`` a string, ``stream`` a boolean, ``ints`` integers, ``tools`` a list of objects."""
    opt(b, "model", str, "a string")
    opt(b, "stream", bool, "a boolean")
    for k in ints:
        opt(b, k, int, "an integer")
    tools = b.get("tools")
    if tools is not None:
        for i, t in enumerate(array(tools, "tools")):
            if type(t) is not dict:  # the path is formatted only for an error
                obj(t, f"tools[{i}]")


def required_list(b: dict[str, Any], key: str) -> list[Any]:
    if b.get(key) is None:
        raise MalformedRequestError(f"{key} is required")
    return array(b[key], key)


def parts(v: Any, where: str, allowed: tuple[str, ...], what: str, plural: str = "", *,
          optional: bool = True) -> None:
    """A string or an array of ``what``s (each ``typed``); ``optional``: or absent."""
    if isinstance(v, list):
        for j, part in enumerate(v):
            typed(part, f"{where}[{j}]", allowed, what + " type")
    elif not (isinstance(v, str) or (optional and v is None)):
        raise fail(where, f"a string or an array of {plural or what + 's'}", v)


def typed(part: Any, where: str, allowed: tuple[str, ...], what: str, pattern: re.Pattern[str] | None = None) -> str:
    """A content part: an object whose ``type`` is one of ``allowed`` (or matches ``pattern``);
    a ``text`` part's ``text`` is a string."""
    obj(part, where)
    typ = part.get("type")
    if not (isinstance(typ, str) and pattern is not None and pattern.fullmatch(typ)):
        one_of(typ, allowed, where + ".type", what)
    if typ == "text":
        string(part, "text", where)
    return str(typ)
