"""``WireApi``: everything the mock server knows of one wire API, and ``RequestView``, the
request as autocue reads it (once, when the request arrives).

A wire module (``wire/chat.py``, ...) subclasses ``WireApi`` and names an instance ``API``;
``autocue.catalog.apis`` names the module and ``wire.registry`` loads it. The base class holds
what most APIs share (a history of ``{role, content}`` messages, OpenAI-shaped errors, ``call_``
tool ids, SSE streams, reading a recorded reply with autocue's provider of the API), so a
module overrides only what its API does differently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autocue.mockllm.wire.common import Segments

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from autocue.catalog.apis import ApiEntry
    from autocue.llm.types import Context, Tool
    from autocue.mockllm.incoming import Incoming
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.scenario.writer import TimedReply

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


class WireApi:
    """One wire API. ``entry`` (its catalogue entry) is set by the registry."""

    entry: ApiEntry
    routes: tuple[WireRoute, ...] = ()
    history_key = "messages"
    """The body key of the history (append-only between a session's requests)."""
    tool_id_prefix = "call_"
    count_route = False

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def label(self) -> str:
        return self.entry.label

    # ------------------------------------------------------------------ paths
    def claims(self, path: str) -> bool:
        """Whether ``path`` (any method) is this API's: its errors take this API's shape."""
        return False

    def model_call(self, path: str) -> bool:
        """Whether a ``POST`` to ``path`` is a model call of this API (what ``autocue record`` records)."""
        return False

    def call(self, path: str) -> Call | None:
        """What a request on one of the API's routes asks for (None: no such endpoint, 404)."""
        return Call()

    def count_body(self, tokens: int) -> dict[str, Any]:
        """The answer to a token count."""
        return {"input_tokens": tokens}

    # ------------------------------------------------------------------ reading
    def read(self, body: dict[str, Any], query: dict[str, str], headers: dict[str, str]) -> RequestView:
        msgs = self.history(body, query)
        tools = self.tool_list(body, msgs, headers)
        first = ""
        for m in msgs:
            if isinstance(m, dict) and m.get("role") == "user":
                text = self.message_text(m)
                if text.strip():
                    first = text
                    break
        last = msgs[-1] if msgs and isinstance(msgs[-1], dict) else None
        return RequestView(
            msgs, self.system_text(body, msgs), tools, self.declared(tools), self.function_tools(tools), first, last,
            self.message_text(last) if last is not None and last.get("role") == "user" else "",
            self.normalize_last(last) if last is not None else LastMessage("none", "", ""),
            str(body.get("model") or ""), bool(body.get("stream")), self.options(body, msgs, query, headers))

    def history(self, body: dict[str, Any], query: dict[str, str]) -> list[Any]:
        m = body.get(self.history_key)
        return m if isinstance(m, list) else []

    def message_text(self, m: dict[str, Any]) -> str:
        return parts_text(m.get("parts")) if "parts" in m else flatten(m.get("content"))

    def system_text(self, body: dict[str, Any], msgs: list[Any]) -> str:
        """The system prompt (top-level ``system`` / ``instructions`` / ``systemInstruction``, or a
        leading system/developer message)."""
        for key in ("system", "instructions", "systemInstruction"):
            v = body.get(key)
            if v:
                return flatten(v)
        if msgs and isinstance(msgs[0], dict) and msgs[0].get("role") in ("system", "developer"):
            return self.message_text(msgs[0])
        return ""

    def tool_list(self, body: dict[str, Any], msgs: list[Any], headers: dict[str, str]) -> list[Any]:
        """The tool definitions; a namespace (Codex) is followed by the tools it holds."""
        tools = body.get("tools")
        return with_namespaces(tools if isinstance(tools, list) else [])

    def declared(self, tools: list[Any]) -> list[str]:
        names: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.append(fn["name"])
            elif isinstance(t.get("name"), str):
                names.append(t["name"])
            elif isinstance(t.get("type"), str):
                names.append(t["type"])
        return names

    def function_tools(self, tools: list[Any]) -> list[str]:
        out: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.append(fn["name"])
            elif t.get("type") in (None, "function", "custom") and isinstance(t.get("name"), str):
                out.append(t["name"])
        return out

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
        return {}

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        role = _ROLES.get(str(m.get("role") or ""), str(m.get("role") or "")) or "user"
        text = self.message_text(m)
        return LastMessage("tool", text, text) if role == "tool" else LastMessage(role, text, "")

    def context(self, view: RequestView) -> Context:
        """The autocue ``Context`` the request carries (what a response factory is given)."""
        from autocue.llm.types import Context
        from autocue.mockllm.wire.context import ContextBuilder

        b = ContextBuilder()
        for m in view.messages:
            if isinstance(m, dict):
                self.add_to_context(b, m)
        return Context(view.system or None, b.msgs, self.tool_specs(view.tools))

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        b.message(m)

    def tool_specs(self, tools: list[Any]) -> list[Tool]:
        from autocue.llm.types import Tool

        out: list[Tool] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            fn: dict[str, Any] = t["function"] if isinstance(t.get("function"), dict) else t
            if isinstance(fn.get("name"), str):
                out.append(Tool(fn["name"], fn.get("description") or "",
                                fn.get("parameters") or fn.get("input_schema") or {}))
        return out

    # ------------------------------------------------------------------ checking
    def flat_items(self, items: list[Any]) -> bool:
        """Whether these history items are known valid and shallow (no nesting walk needed)."""
        return False

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        """Raise ``shape.MalformedRequestError`` when ``body`` is no well-formed request: the top-level fields
        always, the history items from ``start`` on (those before it were checked already)."""

    # ------------------------------------------------------------------ errors
    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        """The body the real API sends for an error with this HTTP status (OpenAI's shape)."""
        from autocue.mockllm.errors import openai_error

        return openai_error(status, message, kind=kind, code=code)

    # ------------------------------------------------------------------ rendering
    def json_body(self, reply: Reply, req: Incoming) -> dict[str, Any]:
        raise NotImplementedError

    def stream(self, reply: Reply, req: Incoming, fuzz: Fuzzer | None = None) -> Segments:
        raise NotImplementedError

    def media_type(self, req: Incoming) -> str:
        """The media type of a streamed reply."""
        return SSE

    # ------------------------------------------------------------------ recording
    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        """The assistant message of a recorded reply (autocue's provider of the API reads it)."""
        from autocue.mockllm.wire.readback import read_with_provider

        return await read_with_provider(self.entry.provider_api, chunks, event_stream=event_stream, model=model)


_ROLES = {"model": "assistant", "function": "tool", "developer": "system"}
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
