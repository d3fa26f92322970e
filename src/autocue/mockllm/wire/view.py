"""The request as autocue reads it (``RequestView``, read once by ``WireApi.read``) and the small
types and text helpers every wire module shares. It imports nothing else of the mock server, so
every module of it may import this one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

SSE = "text/event-stream"
Chunk = tuple[float, bytes]
"""``(seconds since the request was forwarded, bytes as they arrived)`` of a recorded reply."""


@dataclass(frozen=True, slots=True)
class WireRoute:
    """A path template (``asgi.Route`` syntax) of the API and the methods it answers."""

    path: str
    methods: tuple[str, ...] = ("POST",)


@dataclass(frozen=True, slots=True)
class Call:
    """What a request on one of the API's routes asks for."""

    count: bool = False
    """A token count (answered with ``count_body``), not a model call."""
    model: str | None = None
    """The model named by the path (Gemini), else the body's."""
    stream: bool | None = None
    """Streamed or not as the path says (Gemini), else the body's ``stream``."""


@dataclass(slots=True)
class LastMessage:
    """The last message, read the same way for every API: ``role`` is ``user``, ``assistant``,
    ``tool`` (it carries tool results) or ``system``."""

    role: str
    text: str
    tool_result: str

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "text": self.text, "toolResult": self.tool_result}


@dataclass(slots=True)
class RequestView:
    """A request as autocue reads it, whatever its API (read once, by ``WireApi.read``)."""

    messages: list[Any]
    """The API's history items as sent (messages, ``input`` items, ``contents``)."""
    system: str
    tools: list[Any]
    """The tool definitions as sent (a namespace followed by the tools it holds)."""
    declared_tools: list[str]
    """Names of every declared tool, unknown tool types by ``name`` or ``type``."""
    function_tools: list[str]
    """Names of the plain function tools (what a tool profile maps onto)."""
    first_user_text: str
    last: dict[str, Any] | None
    last_user_text: str
    """Text of the last message when it is a user prompt, else ``""``."""
    last_normalized: LastMessage
    model: str
    """The body's ``model`` (``""`` when absent)."""
    stream: bool
    """The body's ``stream``."""
    options: dict[str, Any] = field(default_factory=dict)
    """The API's own options (Chat ``include_usage``, Gemini ``sse``, Responses ``codex_lite``)."""


class WireRequest(Protocol):
    """What a renderer reads of a request (``Incoming`` is one)."""

    @property
    def body(self) -> dict[str, Any]: ...

    @property
    def model(self) -> str: ...

    @property
    def view(self) -> RequestView: ...

    @property
    def include_usage(self) -> bool: ...


_NESTED = re.compile(r"declare const tools: \{ ?([A-Za-z_][A-Za-z0-9_]*)\(")


def with_namespaces(tools: list[Any]) -> list[Any]:
    """``tools``, each namespace followed by the tools it holds; Codex's code-mode ``exec`` tool
    is followed by the tools its description declares (``declare const tools: { exec_command(...``),
    which Codex also runs when the model calls them directly."""
    out: list[Any] = []
    for t in tools:
        out.append(t)
        if isinstance(t, dict) and t.get("type") == "namespace" and isinstance(t.get("tools"), list):
            for n in t["tools"]:
                out.append(n)
                if isinstance(n, dict) and n.get("name") == "exec" and isinstance(n.get("description"), str):
                    out.extend({"type": "function", "name": x} for x in _NESTED.findall(n["description"]))
    return out


def parts_text(parts: Any) -> str:
    """The text of a Gemini-style ``parts`` list."""
    if not isinstance(parts, list):
        return ""
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def flatten(v: Any) -> str:
    """The text of a content value: a string, a text block, a ``{"parts": ...}`` object, or a list of those."""
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        if isinstance(v.get("text"), str):
            return str(v["text"])
        if "parts" in v:
            return parts_text(v.get("parts"))
        return ""
    if isinstance(v, list):
        return "\n".join(t for t in (flatten(x) for x in v) if t)
    return ""


def strings(v: Any) -> Iterator[str]:
    """Every string in ``v``."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
