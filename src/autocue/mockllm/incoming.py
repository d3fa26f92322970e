"""``Incoming``: one parsed API request, and what the server needs from it.

Parsing is one ``orjson.loads`` of the body; everything else is read lazily and only walks
the history when asked (the first user prompt when a session is created, the request text
when an assertion runs). ``declared_tools()`` reads the tool list of any of the four APIs,
including non-standard tool types (Codex's ``namespace``), which are listed, never rejected.
Codex's Responses "lite" request (header ``x-openai-internal-codex-responses-lite``, sent
when no ``model`` is configured) has no top-level ``tools``: they sit in an ``input[]`` item of
type ``additional_tools``, grouped in namespaces; ``tool_list()`` reads them from there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

CODEX_LITE_HEADER = "x-openai-internal-codex-responses-lite"
_NESTED = re.compile(r"declare const tools: \{ ?([A-Za-z_][A-Za-z0-9_]*)\(")

ApiName = Literal["chat", "responses", "anthropic", "gemini"]

API_LABEL: dict[str, str] = {
    "chat": "OpenAI Chat Completions",
    "responses": "OpenAI Responses",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini generateContent",
}


@dataclass(slots=True)
class Incoming:
    api: ApiName
    body: dict[str, Any]
    headers: dict[str, str]
    """Lower-case header names."""
    path: str
    raw_size: int
    stream: bool
    model: str
    session_key: str
    scenario: str | None = None
    """Scenario named by the request (``x-scenario-name`` or a ``/scenario/{name}/`` prefix)."""
    profile: str | None = None
    """Tool profile named by the request (``x-autocue-profile``)."""
    query: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    """The bytes ``body`` was parsed from, when the server has them: the journal keeps these
    instead of the parsed body (one bytes object, which the cyclic GC never scans)."""

    # ------------------------------------------------------------------ options
    @property
    def include_usage(self) -> bool:
        """Chat: ``stream_options.include_usage``."""
        so = self.body.get("stream_options")
        return isinstance(so, dict) and bool(so.get("include_usage"))

    @property
    def sse(self) -> bool:
        """Gemini: ``alt=sse`` (otherwise a streamed JSON array)."""
        return self.query.get("alt") == "sse"

    # ------------------------------------------------------------------ messages
    def messages(self) -> list[Any]:
        b = self.body
        if self.api == "responses":
            inp = b.get("input")
            if isinstance(inp, str):
                return [{"role": "user", "content": inp}]
            return inp if isinstance(inp, list) else []
        if self.api == "gemini":
            c = b.get("contents")
            return c if isinstance(c, list) else []
        m = b.get("messages")
        return m if isinstance(m, list) else []

    def first_user_text(self) -> str:
        """The text of the first user message (what scenario matching compares)."""
        for m in self.messages():
            if isinstance(m, dict) and m.get("role") == "user":
                text = _message_text(m)
                if text.strip():
                    return text
        return ""

    def last_message(self) -> dict[str, Any] | None:
        msgs = self.messages()
        return msgs[-1] if msgs and isinstance(msgs[-1], dict) else None

    def last_user_text(self) -> str:
        """Text of the last message when it is a user prompt (not a tool result), else ``""``."""
        m = self.last_message()
        if m is None or m.get("role") != "user":
            return ""
        return _message_text(m)

    def system_text(self) -> str:
        """The system prompt (top-level ``system``/``instructions``/``systemInstruction``, or a
        leading system/developer message)."""
        b = self.body
        for key in ("system", "instructions", "systemInstruction"):
            v = b.get(key)
            if v:
                return _flatten(v)
        msgs = self.messages()
        if msgs and isinstance(msgs[0], dict) and msgs[0].get("role") in ("system", "developer"):
            return _message_text(msgs[0])
        return ""

    def all_text(self) -> str:
        """Every string in the conversation (for ``text.contains`` checks; walks the history)."""
        return "\n".join(_strings(self.messages()))

    # ------------------------------------------------------------------ tools
    @property
    def codex_lite(self) -> bool:
        """A Codex Responses "lite" request (its header, or tools in an ``additional_tools`` item)."""
        if self.api != "responses":
            return False
        if self.headers.get(CODEX_LITE_HEADER, "").lower() in ("true", "1"):
            return True
        return not isinstance(self.body.get("tools"), list) and bool(self._additional_tools())

    def _additional_tools(self) -> list[Any]:
        inp = self.body.get("input")
        if not isinstance(inp, list):
            return []
        out: list[Any] = []
        for item in inp:
            if isinstance(item, dict) and item.get("type") == "additional_tools":
                tools = item.get("tools")
                if isinstance(tools, list):
                    out.extend(tools)
        return out

    def tool_list(self) -> list[Any]:
        """The request's tool definitions: top-level ``tools``, or (Codex lite) those of the
        ``additional_tools`` input items; a namespace is followed by the tools it holds."""
        tools = self.body.get("tools")
        if not isinstance(tools, list):
            tools = self._additional_tools() if self.api == "responses" else []
        out: list[Any] = []
        for t in tools:
            out.append(t)
            if isinstance(t, dict) and t.get("type") == "namespace" and isinstance(t.get("tools"), list):
                out.extend(self._with_nested(t["tools"]))
        return out

    @staticmethod
    def _with_nested(tools: list[Any]) -> list[Any]:
        """A namespace's tools; Codex's code-mode ``exec`` tool is followed by the tools its
        description declares (``declare const tools: { exec_command(...``), which Codex also
        runs when the model calls them directly."""
        out: list[Any] = []
        for t in tools:
            out.append(t)
            if isinstance(t, dict) and t.get("name") == "exec" and isinstance(t.get("description"), str):
                out.extend({"type": "function", "name": n} for n in _NESTED.findall(t["description"]))
        return out

    def declared_tools(self) -> list[str]:
        """Names of the tools the request declares, in order (unknown tool types included by
        their ``name`` or ``type``; a namespace and then the tools in it)."""
        tools = self.tool_list()
        names: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            if self.api == "gemini":
                decls = t.get("functionDeclarations") or t.get("function_declarations")
                for fd in decls if isinstance(decls, list) else ():
                    if isinstance(fd, dict) and isinstance(fd.get("name"), str):
                        names.append(fd["name"])
                continue
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.append(fn["name"])
            elif isinstance(t.get("name"), str):
                names.append(t["name"])
            elif isinstance(t.get("type"), str):
                names.append(t["type"])
        return names

    def declared_function_tools(self) -> list[str]:
        """Names of plain function tools only (what a tool profile maps onto)."""
        if self.api == "gemini":
            return self.declared_tools()
        tools = self.tool_list()
        out: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            typ = t.get("type")
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.append(fn["name"])
            elif (typ in (None, "function", "custom") or self.api == "anthropic") and isinstance(t.get("name"), str):
                if self.api == "anthropic" and typ not in (None, "custom") and "_20" in str(typ):
                    continue  # server tools such as web_search_20250305
                out.append(t["name"])
        return out


def _message_text(m: dict[str, Any]) -> str:
    if "parts" in m:  # gemini
        parts = m.get("parts")
        if not isinstance(parts, list):
            return ""
        return "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
    return _flatten(m.get("content"))


def _flatten(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        if isinstance(v.get("text"), str):
            return str(v["text"])
        if "parts" in v:
            return _message_text(v)
        return ""
    if isinstance(v, list):
        return "\n".join(t for t in (_flatten(x) for x in v) if t)
    return ""


def _strings(v: Any) -> Iterator[str]:
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)
