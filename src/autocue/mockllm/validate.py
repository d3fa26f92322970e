"""What makes an API request malformed: checked before the server acts on it, so a bad
request gets an API-shaped 400 naming the key (``messages[2].content[0].type``) instead of
reaching code that trusts the body's shape.

Checked for the API of the route: the body is a JSON object nested at most ``MAX_DEPTH``
levels; ``model`` is a string; ``stream`` a boolean; token limits integers; the message list
(``messages``, ``input``, ``contents``) has the API's shape, with known roles, content parts
of known types and the ids and names tool calls and results need; ``tools`` is a list of
objects. Optional fields may be ``null`` or absent. Anything else (extra fields, unknown tool
types, new Responses item types, beta fields) passes, as the real APIs accept what real agents
send.
"""

from __future__ import annotations

import re
from typing import Any

from autocue.mockllm.incoming import API_LABEL

MAX_DEPTH = 100
"""The deepest JSON nesting a request may have (real requests, tool schemas included, stay
far below)."""

CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
CHAT_PARTS = ("text", "image_url", "input_audio", "file", "refusal")
RESPONSES_ROLES = ("user", "assistant", "system", "developer")
RESPONSES_PARTS = ("input_text", "input_image", "input_file", "input_audio", "output_text", "refusal",
                   "summary_text", "reasoning_text", "text")
ANTHROPIC_ROLES = ("user", "assistant", "system", "developer")
ANTHROPIC_BLOCKS = ("text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
                    "redacted_thinking", "server_tool_use", "container_upload", "tool_reference")
_ANTHROPIC_TOOL_BLOCK = re.compile(r"[a-z_]+_tool_(use|result)")
"""Server-tool blocks (``web_search_tool_result``, ``mcp_tool_use``, ...)."""
GEMINI_PART_KEYS = frozenset({
    "text", "inlineData", "inline_data", "fileData", "file_data", "functionCall", "function_call",
    "functionResponse", "function_response", "executableCode", "executable_code", "codeExecutionResult",
    "code_execution_result", "thought", "thoughtSignature", "thought_signature", "videoMetadata",
    "video_metadata", "partMetadata", "part_metadata", "mediaResolution", "media_resolution",
})


class _Bad(Exception):
    pass


def problem(api: str, body: dict[str, Any], raw: bytes | None = None) -> str | None:
    """Why ``body`` is not a well-formed request of ``api``, or None. ``raw``, the bytes
    ``body`` was parsed from, lets a body with fewer brackets than ``MAX_DEPTH`` skip the
    nesting walk (it cannot nest deeper than it has brackets)."""
    label = API_LABEL.get(api, api)
    plain = api == "chat" and _all_plain_chat(body.get("messages"))
    # plain chat messages nest 6 levels at most: the walk can leave them out
    walk = {k: v for k, v in body.items() if k != "messages"} if plain else body
    if (raw is None or raw.count(b"{") + raw.count(b"[") > MAX_DEPTH) and _too_deep(walk):
        return f"malformed {label} request: JSON nested deeper than {MAX_DEPTH} levels"
    try:
        _prompts(body)
        if plain:
            _chat(body, messages_checked=True)
        else:
            _CHECKS[api](body)
    except _Bad as e:
        return f"malformed {label} request: {e}"
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


# ---------------------------------------------------------------------- primitives
def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "an array" if isinstance(v, list) else "an object"


def _fail(where: str, want: str, got: Any) -> _Bad:
    shown = repr(got)[:60] if isinstance(got, (str, int, float)) and not isinstance(got, bool) else _kind(got)
    return _Bad(f"{where} must be {want}, got {shown}")


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _fail(where, "an object", v)
    return v


def _list(v: Any, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise _fail(where, "an array", v)
    return v


def _opt(body: dict[str, Any], key: str, kind: type, want: str, where: str = "") -> None:
    """``key`` is absent, null, or of ``kind`` (a boolean is no integer)."""
    v = body.get(key)
    if v is None:
        return
    if (isinstance(v, bool) and kind is not bool) or not isinstance(v, kind):
        raise _fail(where + key, want, v)


def _str(body: dict[str, Any], key: str, where: str) -> None:
    """``key`` is required and a string."""
    v = body.get(key)
    if not isinstance(v, str):
        raise _fail(f"{where}.{key}", "a string", v) if key in body else _Bad(f"{where}.{key} is required")


def _one_of(v: Any, allowed: tuple[str, ...], where: str, what: str) -> str:
    if not isinstance(v, str):
        raise _fail(where, f"a string ({what}: {', '.join(allowed)})", v) if v is not None else \
            _Bad(f"{where} is required ({what}: {', '.join(allowed)})")
    if v not in allowed:
        raise _Bad(f"{where}: unknown {what} {v[:60]!r} (expected one of {', '.join(allowed)})")
    return v


def _common(b: dict[str, Any], ints: tuple[str, ...]) -> None:
    _opt(b, "model", str, "a string")
    _opt(b, "stream", bool, "a boolean")
    for k in ints:
        _opt(b, k, int, "an integer")
    tools = b.get("tools")
    if tools is not None:
        for i, t in enumerate(_list(tools, "tools")):
            _obj(t, f"tools[{i}]")


_PROMPT_KEYS = ("system", "instructions", "systemInstruction", "system_instruction")


def _prompts(b: dict[str, Any]) -> None:
    """The system prompt fields the server reads in every API (``Incoming.system_text``): a
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
        raise _fail(where, "a string, a text block or a Content object", v)
    _opt(v, "text", str, "a string", where + ".")
    parts = v.get("parts")
    if parts is not None:
        for j, p in enumerate(_list(parts, where + ".parts")):
            _opt(_obj(p, f"{where}.parts[{j}]"), "text", str, "a string", f"{where}.parts[{j}].")


def _required_list(b: dict[str, Any], key: str) -> list[Any]:
    if b.get(key) is None:
        raise _Bad(f"{key} is required")
    return _list(b[key], key)


# ---------------------------------------------------------------------- per API
_CHAT_ROLE_SET = frozenset(CHAT_ROLES)
_STR_OR_NONE = (str, type(None))


def _plain_call(tc: Any) -> bool:
    fn = tc.get("function") if type(tc) is dict else False
    return fn is not False and isinstance(tc.get("id"), _STR_OR_NONE) and (
        fn is None or (type(fn) is dict and type(fn.get("name")) is str
                       and isinstance(fn.get("arguments"), _STR_OR_NONE)))


def _plain_chat_message(m: Any) -> bool:
    """A chat message with a known role, string (or no) content, a string (or no)
    ``tool_call_id`` and well-formed (or no) tool calls: valid, without building the paths an
    error would name."""
    role = m.get("role") if type(m) is dict else None
    if not (type(role) is str and role in _CHAT_ROLE_SET and isinstance(m.get("content"), _STR_OR_NONE)
            and isinstance(m.get("tool_call_id"), _STR_OR_NONE)):
        return False
    calls = m.get("tool_calls")
    return calls is None or (type(calls) is list and all(_plain_call(tc) for tc in calls))


def _all_plain_chat(messages: Any) -> bool:
    return type(messages) is list and all(map(_plain_chat_message, messages))


def _chat(b: dict[str, Any], *, messages_checked: bool = False) -> None:
    """``messages_checked``: every message is known to be plain (``_all_plain_chat``)."""
    _common(b, ("max_tokens", "max_completion_tokens", "n"))
    for i, m in enumerate(() if messages_checked else _required_list(b, "messages")):
        if _plain_chat_message(m):
            continue
        w = f"messages[{i}]"
        _obj(m, w)
        _one_of(m.get("role"), CHAT_ROLES, w + ".role", "role")
        _parts(m.get("content"), w + ".content", CHAT_PARTS, "content part")
        _opt(m, "tool_call_id", str, "a string", w + ".")
        calls = m.get("tool_calls")
        if calls is not None:
            for j, tc in enumerate(_list(calls, w + ".tool_calls")):
                wc = f"{w}.tool_calls[{j}]"
                _opt(_obj(tc, wc), "id", str, "a string", wc + ".")
                fn = tc.get("function")
                if fn is not None:
                    _str(_obj(fn, wc + ".function"), "name", wc + ".function")
                    _opt(fn, "arguments", str, "a string", wc + ".function.")
    for i, t in enumerate(b.get("tools") or []):
        fn = t.get("function")
        if fn is not None:
            _str(_obj(fn, f"tools[{i}].function"), "name", f"tools[{i}].function")


def _responses(b: dict[str, Any]) -> None:
    _common(b, ("max_output_tokens",))
    _opt(b, "instructions", str, "a string")
    inp = b.get("input")
    if inp is None or isinstance(inp, str):
        return
    for i, item in enumerate(_list(inp, "input")):
        w = f"input[{i}]"
        _obj(item, w)
        _opt(item, "type", str, "a string", w + ".")
        typ = item.get("type")
        if typ in (None, "message"):
            _one_of(item.get("role"), RESPONSES_ROLES, w + ".role", "role")
            _parts(item.get("content"), w + ".content", RESPONSES_PARTS, "content part", optional=False)
        elif typ in ("function_call", "custom_tool_call"):
            _str(item, "call_id", w)
            _str(item, "name", w)
        elif typ in ("function_call_output", "custom_tool_call_output"):
            _str(item, "call_id", w)


def _anthropic(b: dict[str, Any]) -> None:
    _common(b, ("max_tokens",))
    _parts(b.get("system"), "system", ("text",), "system block", "text blocks")
    for i, m in enumerate(_required_list(b, "messages")):
        w = f"messages[{i}]"
        _obj(m, w)
        _one_of(m.get("role"), ANTHROPIC_ROLES, w + ".role", "role")
        content = m.get("content")
        if isinstance(content, str):
            continue
        for j, block in enumerate(_list(content, w + ".content")):
            wb = f"{w}.content[{j}]"
            typ = _typed(block, wb, ANTHROPIC_BLOCKS, "content block type", _ANTHROPIC_TOOL_BLOCK)
            if typ == "tool_use":
                _str(block, "id", wb)
                _str(block, "name", wb)
                _opt(block, "input", dict, "an object", wb + ".")
            elif typ == "tool_result":
                _str(block, "tool_use_id", wb)
                _opt(block, "is_error", bool, "a boolean", wb + ".")
                _parts(block.get("content"), wb + ".content", ANTHROPIC_BLOCKS, "content block")
            elif typ == "thinking":
                _str(block, "thinking", wb)


def _gemini(b: dict[str, Any]) -> None:
    for key in ("generationConfig", "generation_config"):
        _opt(b, key, dict, "an object")
    for key in ("systemInstruction", "system_instruction"):
        si = b.get(key)
        if isinstance(si, dict):
            _content(si, key)
        elif si is not None and not isinstance(si, str):
            raise _fail(key, "a Content object", si)
    for i, c in enumerate(_required_list(b, "contents")):
        _content(_obj(c, f"contents[{i}]"), f"contents[{i}]")
    tools = b.get("tools")
    for i, t in enumerate(_list(tools, "tools") if tools is not None else []):
        w = f"tools[{i}]"
        for key in ("functionDeclarations", "function_declarations"):
            decls = _obj(t, w).get(key)
            if decls is not None:
                for j, d in enumerate(_list(decls, f"{w}.{key}")):
                    _str(_obj(d, f"{w}.{key}[{j}]"), "name", f"{w}.{key}[{j}]")


def _content(c: dict[str, Any], w: str) -> None:
    _opt(c, "role", str, "a string", w + ".")
    parts = c.get("parts")
    if parts is None:
        return
    for j, p in enumerate(_list(parts, w + ".parts")):
        wp = f"{w}.parts[{j}]"
        _obj(p, wp)
        if not GEMINI_PART_KEYS.intersection(p):
            keys = ", ".join(list(p)[:5]) or "none"
            raise _Bad(f"{wp}: a part needs one of text, inlineData, fileData, functionCall, functionResponse, "
                       f"executableCode, codeExecutionResult (keys: {keys})")
        _opt(p, "text", str, "a string", wp + ".")
        _opt(p, "thought", bool, "a boolean", wp + ".")
        for key in ("functionCall", "functionResponse"):
            v = p.get(key)
            if v is not None:
                _str(_obj(v, f"{wp}.{key}"), "name", f"{wp}.{key}")
                _opt(v, "id", str, "a string", f"{wp}.{key}.")
        fc = p.get("functionCall")
        if isinstance(fc, dict):
            _opt(fc, "args", dict, "an object", wp + ".functionCall.")


def _parts(v: Any, where: str, allowed: tuple[str, ...], what: str, plural: str = "", *,
           optional: bool = True) -> None:
    """A string or an array of ``what``s (each ``_typed``); ``optional``: or absent."""
    if isinstance(v, list):
        for j, part in enumerate(v):
            _typed(part, f"{where}[{j}]", allowed, what + " type")
    elif not (isinstance(v, str) or (optional and v is None)):
        raise _fail(where, f"a string or an array of {plural or what + 's'}", v)


def _typed(part: Any, where: str, allowed: tuple[str, ...], what: str, pattern: re.Pattern[str] | None = None) -> str:
    """A content part: an object whose ``type`` is one of ``allowed`` (or matches ``pattern``);
    a ``text`` part's ``text`` is a string."""
    _obj(part, where)
    typ = part.get("type")
    if not (isinstance(typ, str) and pattern is not None and pattern.fullmatch(typ)):
        _one_of(typ, allowed, where + ".type", what)
    if typ == "text":
        _str(part, "text", where)
    return str(typ)


_CHECKS = {"chat": _chat, "responses": _responses, "anthropic": _anthropic, "gemini": _gemini}
