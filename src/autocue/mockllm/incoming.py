"""``Incoming``: one parsed API request, and what the server needs from it.

Parsing is one ``orjson.loads`` of the body; the request's API (``wire/<api>.py``) then reads
it once into a ``RequestView`` (``view``): its history, system text, declared tools, first and
last user text, last message. Everything downstream reads the view, never the body per API.
``declared_tools()`` lists non-standard tool types too (Codex's ``namespace``), never rejected;
Codex's Responses "lite" request (tools in an ``input[]`` item of type ``additional_tools``)
is read by the Responses module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autocue.catalog.apis import label
from autocue.mockllm.wire.api import WireApi
from autocue.mockllm.wire.registry import ApiName, wire_api
from autocue.mockllm.wire.view import RequestView, strings

__all__ = ["ApiName", "Incoming", "api_label"]


def api_label(api: str) -> str:
    """What messages call ``api`` (``OpenAI Chat Completions``)."""
    return label(api)


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
    sent: dict[str, Any] | None = None
    """The body as the client sent it when the server spelled out stored context in ``body``
    (``WireApi.expand``: Gemini's ``previous_interaction_id``); None: ``body`` is as sent. A request's
    fingerprint is read from what was sent, as the recording proxy saw it."""
    transport: str = "http"
    """How the request came: ``http`` (a POST) or ``websocket`` (a frame on an upgraded connection)."""
    _wire: WireApi | None = field(default=None, init=False, repr=False, compare=False)
    _view: RequestView | None = field(default=None, init=False, repr=False, compare=False)

    def without_body(self) -> Incoming:
        """A copy without the parsed body (what the journal keeps when it has ``raw``: one bytes
        object, which the cyclic GC never scans); ``dataclasses.replace`` costs a request more."""
        return Incoming(self.api, {}, self.headers, self.path, self.raw_size, self.stream, self.model,
                        self.session_key, self.scenario, self.profile, self.query, self.raw, None, self.transport)

    @property
    def wire(self) -> WireApi:
        """The request's ``WireApi``."""
        w = self._wire
        if w is None:
            w = self._wire = wire_api(self.api)
        return w

    @property
    def view(self) -> RequestView:
        """The body as autocue reads it, read by its API once, when first asked (a copy the journal
        keeps without its body never reads it)."""
        v = self._view
        if v is None:
            v = self._view = self.wire.read(self.body, self.query, self.headers)
        return v

    # ------------------------------------------------------------------ options
    @property
    def include_usage(self) -> bool:
        """Chat: ``stream_options.include_usage``."""
        return bool(self.view.options.get("include_usage"))

    @property
    def sse(self) -> bool:
        """Gemini: ``alt=sse`` (otherwise a streamed JSON array)."""
        return bool(self.view.options.get("sse"))

    @property
    def codex_lite(self) -> bool:
        """A Codex Responses "lite" request (its header, or tools in an ``additional_tools`` item)."""
        return bool(self.view.options.get("codex_lite"))

    # ------------------------------------------------------------------ messages
    def messages(self) -> list[Any]:
        return self.view.messages

    def first_user_text(self) -> str:
        """The text of the first user message (what scenario matching compares)."""
        return self.view.first_user_text

    def last_message(self) -> dict[str, Any] | None:
        return self.view.last

    def last_user_text(self) -> str:
        """Text of the last message when it is a user prompt (not a tool result), else ``""``."""
        return self.view.last_user_text

    def system_text(self) -> str:
        """The system prompt (top-level ``system``/``instructions``/``systemInstruction``, or a
        leading system/developer message)."""
        return self.view.system

    def all_text(self) -> str:
        """Every string in the conversation (for ``text.contains`` checks; walks the history)."""
        return "\n".join(strings(self.view.messages))

    # ------------------------------------------------------------------ tools
    def tool_list(self) -> list[Any]:
        """The request's tool definitions (a namespace followed by the tools it holds)."""
        return self.view.tools

    def declared_tools(self) -> list[str]:
        """Names of the tools the request declares, in order (unknown tool types included by
        their ``name`` or ``type``; a namespace and then the tools in it)."""
        return self.view.declared_tools

    def declared_function_tools(self) -> list[str]:
        """Names of plain function tools only (what a tool profile maps onto)."""
        return self.view.function_tools
