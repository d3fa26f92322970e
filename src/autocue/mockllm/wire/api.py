"""``WireApi``: everything the mock server knows of one wire API, and ``RequestView``, the
request as autocue reads it (once, when the request arrives).

A wire module (``wire/chat.py``, ...) subclasses ``WireApi`` and names an instance ``API``;
``autocue.catalog.apis`` names the module and ``wire.registry`` loads it. The base class holds
what most APIs share (a history of ``{role, content}`` messages, OpenAI-shaped errors, ``call_``
tool ids, SSE streams, reading a recorded reply with autocue's provider of the API), so a
module overrides only what its API does differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from autocue.mockllm.wire import shape
from autocue.mockllm.wire.common import Segments
from autocue.mockllm.wire.view import SSE as SSE
from autocue.mockllm.wire.view import Call as Call
from autocue.mockllm.wire.view import Chunk as Chunk
from autocue.mockllm.wire.view import Kept as Kept
from autocue.mockllm.wire.view import LastMessage as LastMessage
from autocue.mockllm.wire.view import RequestView as RequestView
from autocue.mockllm.wire.view import Surface as Surface
from autocue.mockllm.wire.view import WireRequest as WireRequest
from autocue.mockllm.wire.view import WireRoute as WireRoute
from autocue.mockllm.wire.view import flatten as flatten
from autocue.mockllm.wire.view import parts_text as parts_text
from autocue.mockllm.wire.view import schema_at as schema_at
from autocue.mockllm.wire.view import strings as strings
from autocue.mockllm.wire.view import with_namespaces as with_namespaces

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from autocue.catalog.apis import ApiEntry
    from autocue.llm.types import Context, Tool
    from autocue.mockllm.embeddings import EmbedRequest
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.scenario.writer import TimedReply

@dataclass(slots=True)
class SocketTurn:
    """What one client frame of a WebSocket asks for: ``body``, the request as HTTP would carry it (the
    whole history), the lane its events are tagged with, and whether to generate (False: a warm-up)."""

    body: dict[str, Any]
    lane: str | None = None
    generate: bool = True


@dataclass(slots=True)
class SocketRefusal:
    """A client frame refused: an error event with this HTTP status (the socket stays open)."""

    status: int
    message: str
    code: str
    param: str | None = None
    lane: str | None = None


class SocketMode(Protocol):
    """An API's WebSocket mode (``mockllm/websocket.py`` drives it): client frames become HTTP bodies,
    the streamed events become frames, each response's context is remembered for the next frame."""

    def turn(self, frame: dict[str, Any], recall: Callable[[str], list[Any] | None]) -> SocketTurn | SocketRefusal:
        """The request a client frame makes (``recall(id)``: the history a response id continues, or None)."""
        ...

    def finished(self, event: dict[str, Any], body: dict[str, Any]) -> tuple[str, list[Any]] | None:
        """For the event that ends a response: its id and the history it leaves (input and output); else None."""
        ...

    def warmup(self, body: dict[str, Any], response_id: str) -> list[dict[str, Any]]:
        """The events answering a frame that asks for no generation."""
        ...

    def error_event(self, status: int, body: Any, headers: dict[str, str], lane: str | None) -> dict[str, Any]:
        """The error event for an HTTP error answer (``body``: the API's error body)."""
        ...

    def tag(self, event: dict[str, Any], lane: str) -> None:
        """Mark an event as the lane's."""
        ...


class WireApi:
    """One wire API. ``entry`` (its catalogue entry) is set by the registry."""

    entry: ApiEntry
    routes: tuple[WireRoute, ...] = ()
    surfaces: tuple[Surface, ...] = ()
    """Its endpoints as its docs name them (the generated surface table of docs/mock-server.md)."""
    websocket_paths: tuple[str, ...] = ()
    """Paths (after the server's ``/s/``, ``/scenario/`` prefixes) where the API also takes a WebSocket
    (an upgraded ``GET``), served by ``socket``; an upgrade elsewhere gets 426."""
    socket: SocketMode | None = None
    history_key = "messages"
    """The body key of the history (append-only between a session's requests)."""
    tool_id_prefix = "call_"
    count_route = False
    stream_default = False
    """Whether a request without ``stream`` is streamed (Ollama's are)."""

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
        """What a request on one of the API's routes asks for (None: no such endpoint, 404): a function
        of ``path`` alone (the app keeps the answer for each path)."""
        return Call()

    def count_body(self, tokens: int) -> dict[str, Any]:
        """The answer to a token count."""
        return {"input_tokens": tokens}

    def embed_request(self, body: dict[str, Any], call: Call, path: str) -> EmbedRequest:
        """The inputs of an embeddings request (``Call.embed``); ``shape.MalformedRequestError`` when
        the body is none."""
        raise shape.MalformedRequestError(f"{self.label} has no embeddings endpoint")

    def embed_body(self, vectors: list[list[float]], req: EmbedRequest) -> dict[str, Any]:
        """The answer to an embeddings request, in the API's shape."""
        raise NotImplementedError

    def models_body(self, names: list[str], path: str) -> dict[str, Any]:
        """The answer to a model listing (``Call.listing``): OpenAI's shape."""
        from autocue.mockllm.wire.common import now

        created = now()
        return {"object": "list", "data": [openai_model(n, created) for n in names], "has_more": False,
                "first_id": names[0] if names else None, "last_id": names[-1] if names else None}

    def lists_for(self, headers: dict[str, str], query: dict[str, str]) -> bool:
        """Whether a ``GET /v1/models`` (a path several APIs list at) comes from this API's client
        (answered with its ``models_body``); the first API that says so answers, else OpenAI's list."""
        return False

    # ------------------------------------------------------------------ stored context
    def expand(self, body: dict[str, Any], kept: Callable[[str], Kept | None]) -> dict[str, Any]:
        """The body with the stored context it names spelled out (Gemini's ``previous_interaction_id``),
        before anything reads it; ``body`` itself when it names none. ``kept`` finds a stored reply by
        id; ``LookupError`` (its message says which id) when the named one is not there."""
        return body

    def keep(self, req: WireRequest, reply: Reply) -> tuple[str, list[Any]] | None:
        """The id of ``reply`` and the history it ends, for later requests that name it (None: keep nothing)."""
        return None

    def resume(self, kept: Kept, after: str | None) -> Segments:
        """A stored reply streamed again, from the event after ``after`` (all of it when None)."""
        return self.stream(kept.reply, kept.req)

    def info_body(self, body: dict[str, Any], path: str, names: list[str]) -> dict[str, Any]:
        """The answer to a ``Call.info`` request (``names``: the models the server lists)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ reading
    def read(self, body: dict[str, Any], query: dict[str, str], headers: dict[str, str]) -> RequestView:
        """The request as autocue reads it (each part read once, when first asked)."""
        return RequestView(self, body, query, headers)

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

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The JSON Schema the request declares for the answer (structured output; None: none), read
        from the API's own field (``view.schema_at`` walks to it)."""
        return None

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
        return Context(view.system or None, b.msgs, self.tool_specs(view.tools), view.response_schema)

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
        return openai_error(status, message, kind=kind, code=code)

    def error_headers(self, status: int) -> dict[str, str]:
        """Headers the real API sends with an error besides its body (Bedrock's ``x-amzn-ErrorType``)."""
        return {}

    # ------------------------------------------------------------------ rendering
    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        raise NotImplementedError

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        raise NotImplementedError

    def media_type(self, req: WireRequest) -> str:
        """The media type of a streamed reply."""
        return SSE

    # ------------------------------------------------------------------ recording
    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        """The assistant message of a recorded reply (autocue's provider of the API reads it)."""
        from autocue.mockllm.wire.readback import read_with_provider

        return await read_with_provider(self.entry.provider_api, chunks, event_stream=event_stream, model=model)


_ROLES = {"model": "assistant", "function": "tool", "developer": "system"}


_OPENAI_TYPE = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "not_found"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", "service_unavailable"),
    529: ("server_error", "overloaded"),
}


def openai_error(status: int, message: str, *, kind: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error body."""
    etype, ecode = _OPENAI_TYPE.get(status) or (("server_error" if status >= 500 else "invalid_request_error"), None)
    if kind == "context_overflow":
        ecode = "context_length_exceeded"
    return {"error": {"message": message, "type": etype, "param": None, "code": code or ecode}}


def openai_model(name: str, created: int) -> dict[str, Any]:
    """A model as OpenAI's and Anthropic's model lists show one."""
    return {"id": name, "object": "model", "type": "model", "created": created, "created_at": "2025-01-01T00:00:00Z",
            "display_name": name, "owned_by": "autocue"}
