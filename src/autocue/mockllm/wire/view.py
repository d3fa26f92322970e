"""The request as autocue reads it (``RequestView``, read once by ``WireApi.read``) and the small
types and text helpers every wire module shares. It imports nothing else of the mock server, so
every module of it may import this one."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")

SSE = "text/event-stream"
Chunk = tuple[float, bytes]
"""``(seconds since the request was forwarded, bytes as they arrived)`` of a recorded reply."""


@dataclass(frozen=True, slots=True)
class WireRoute:
    """A path template (``asgi.Route`` syntax) of the API and the methods it answers."""

    path: str
    methods: tuple[str, ...] = ("POST",)


@dataclass(frozen=True, slots=True)
class Surface:
    """One endpoint of an API as its docs name it, for the surface table of docs/mock-server.md
    (``scripts/surfaces.py``): ``POST /v1beta/models/{model}:streamGenerateContent``."""

    method: str
    """``POST``, ``GET``, ... or ``WEBSOCKET`` (an upgraded ``GET`` on one of ``WireApi.websocket_paths``)."""
    path: str
    """The path as the API's docs write it (``{model}`` for a part the client fills in)."""
    streamed: str = ""
    """How its answer streams (``SSE``, ``NDJSON``, ...); ``""``: it does not."""
    what: str = ""
    """What it is, when the path does not say (``embeddings``, ``model list``)."""
    also: tuple[str, ...] = ()
    """Other paths of the same endpoint (``/chat/completions`` without ``/v1``)."""

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class Call:
    """What a request on one of the API's routes asks for."""

    count: bool = False
    """A token count (answered with ``count_body``), not a model call."""
    model: str | None = None
    """The model named by the path (Gemini), else the body's."""
    stream: bool | None = None
    """Streamed or not as the path says (Gemini), else the body's ``stream``."""
    embed: bool = False
    """An embeddings request (``WireApi.embed_request`` reads it, ``embed_body`` answers it)."""
    listing: bool = False
    """A model listing (answered with ``WireApi.models_body``)."""
    info: bool = False
    """A question about the server or a model that plays no step (Ollama's ``/api/show``,
    ``/api/version``): answered with ``WireApi.info_body``."""
    stored: str | None = None
    """The id of a stored reply the request reads back (``GET /v1/interactions/{id}``): ``Kept``."""


@dataclass(frozen=True, slots=True)
class Kept:
    """A reply the server keeps for later requests that name its id (``WireApi.keep``)."""

    context: list[Any]
    """The history the reply ends (the request's history items and the reply's own)."""
    reply: Any
    """The ``Reply``."""
    req: WireRequest
    """The request it answered."""


@dataclass(slots=True)
class LastMessage:
    """The last message, read the same way for every API: ``role`` is ``user``, ``assistant``,
    ``tool`` (it carries tool results) or ``system``."""

    role: str
    text: str
    tool_result: str

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "text": self.text, "toolResult": self.tool_result}


class ViewReader(Protocol):
    """How one API reads each part of a request (``WireApi`` is one)."""

    stream_default: bool

    def history(self, body: dict[str, Any], query: dict[str, str]) -> list[Any]: ...

    def message_text(self, m: dict[str, Any]) -> str: ...

    def system_text(self, body: dict[str, Any], msgs: list[Any]) -> str: ...

    def tool_list(self, body: dict[str, Any], msgs: list[Any], headers: dict[str, str]) -> list[Any]: ...

    def declared(self, tools: list[Any]) -> list[str]: ...

    def function_tools(self, tools: list[Any]) -> list[str]: ...

    def normalize_last(self, m: dict[str, Any]) -> LastMessage: ...

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]: ...

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None: ...


class _once(Generic[T]):
    """A property computed on first access and kept in the instance (``functools.cached_property``
    without its lock, which costs a request more than reading most of its parts)."""

    def __init__(self, fn: Callable[[Any], T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, owner: Any = None) -> T:
        if obj is None:  # on the class: the descriptor itself
            return self  # type: ignore[return-value]
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class RequestView:
    """A request as autocue reads it, whatever its API (``WireApi.read``). Each part is read by the
    request's API once, when first asked: a short request that only needs its history and model
    never walks its tools or its system prompt."""

    def __init__(self, reader: ViewReader, body: dict[str, Any], query: dict[str, str],
                 headers: dict[str, str]) -> None:
        self._reader = reader
        self._body = body
        self._query = query
        self._headers = headers

    @_once
    def messages(self) -> list[Any]:
        """The API's history items as sent (messages, ``input`` items, ``contents``)."""
        return self._reader.history(self._body, self._query)

    @_once
    def system(self) -> str:
        return self._reader.system_text(self._body, self.messages)

    @_once
    def tools(self) -> list[Any]:
        """The tool definitions as sent (a namespace followed by the tools it holds)."""
        return self._reader.tool_list(self._body, self.messages, self._headers)

    @_once
    def declared_tools(self) -> list[str]:
        """Names of every declared tool, unknown tool types by ``name`` or ``type``."""
        return self._reader.declared(self.tools)

    @_once
    def function_tools(self) -> list[str]:
        """Names of the plain function tools (what a tool profile maps onto)."""
        return self._reader.function_tools(self.tools)

    @_once
    def first_user_text(self) -> str:
        for m in self.messages:
            if isinstance(m, dict) and m.get("role") == "user":
                text = self._reader.message_text(m)
                if text.strip():
                    return text
        return ""

    @_once
    def last(self) -> dict[str, Any] | None:
        msgs = self.messages
        return msgs[-1] if msgs and isinstance(msgs[-1], dict) else None

    @_once
    def last_user_text(self) -> str:
        """Text of the last message when it is a user prompt, else ``""``."""
        last = self.last
        return self._reader.message_text(last) if last is not None and last.get("role") == "user" else ""

    @_once
    def last_normalized(self) -> LastMessage:
        last = self.last
        return self._reader.normalize_last(last) if last is not None else LastMessage("none", "", "")

    @_once
    def model(self) -> str:
        """The body's ``model`` (``""`` when absent)."""
        return str(self._body.get("model") or "")

    @_once
    def stream(self) -> bool:
        """The body's ``stream`` (absent or null: the API's ``stream_default``)."""
        v = self._body.get("stream")
        return self._reader.stream_default if v is None else bool(v)

    @_once
    def response_schema(self) -> dict[str, Any] | None:
        """The JSON Schema the request asks the answer to satisfy (structured output), or None."""
        return self._reader.response_schema(self._body)

    @_once
    def options(self) -> dict[str, Any]:
        """The API's own options (Chat ``include_usage``, Gemini ``sse``, Responses ``codex_lite``)."""
        return self._reader.options(self._body, self.messages, self._query, self._headers)


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


def deployment(path: str) -> str | None:
    """The deployment an Azure OpenAI path names (``/openai/deployments/{deployment}/...``), or None."""
    if not path.startswith("/openai/deployments/"):
        return None
    return path[len("/openai/deployments/"):].partition("/")[0] or None


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


def schema_at(node: Any, *keys: str) -> dict[str, Any] | None:
    """The object ``node[keys[0]][keys[1]]...`` when every step is an object (a declared response
    schema), else None."""
    for k in keys:
        node = node.get(k) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None
