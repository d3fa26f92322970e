"""``ExtensionRunner``: dispatches events to extension handlers with pi's exact merge semantics.

Handlers run in extension load order, then registration order. Per event name the handler
list is precomputed, so an event nobody subscribed to costs one dict lookup. Sync handlers
are called without any awaiting; the first handler that returns an awaitable switches the
dispatch to an async continuation, so mixing sync and async handlers keeps the order.

Semantics (see ``autocue.extensions.events`` for result shapes):

* generic events: results ignored; a raising handler is reported as ``extension_error``.
* ``tool_call``: the first ``block`` wins and stops the chain; a raising handler blocks with
  ``"<ExceptionType>: <message>"`` as the reason (and is reported).
* ``tool_result``: each handler sees the result as patched by the ones before it; ``content``,
  ``details`` and ``is_error`` patches all apply. Handlers see error results too.
* ``input``: ``transform`` chains, the first ``handled`` stops everything.
* ``before_agent_start``: every ``message`` is collected; ``system_prompt`` chains.
* ``context``: ``messages`` chains on the copy the caller passed.
* ``session_before_*``: the first ``cancel`` wins; otherwise the last non-empty result.
* ``resources_discover``: paths accumulate.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from autocue import suite_coverage
from autocue.agent.loop import AfterToolCallResult, BeforeToolCallResult
from autocue.casing import MISSING, field
from autocue.extensions.events import (
    BeforeAgentStartEvent,
    ContextEvent,
    CustomMessageSpec,
    ExtensionErrorEvent,
    InputEvent,
    InputResult,
    ResourcesDiscoverEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from autocue.extensions.extension import CommandInfo, Extension, NormalizedHandler, RegisteredCommand, RegisteredFlag
from autocue.llm.types import TextContent, content_from_json

if TYPE_CHECKING:
    from autocue.agent.tool import AgentTool
    from autocue.extensions.context import ExtensionCommandContext, ExtensionContext
    from autocue.extensions.host import SessionHost

HandlerList = list[tuple[Extension, NormalizedHandler]]
_T = TypeVar("_T")
_Step = Callable[[Any, Extension, Any], Any]
_GO = object()
_CHANGED = object()


def _is_awaitable(r: Any) -> bool:
    return hasattr(r, "__await__")


class ExtensionRunner:
    """Holds the loaded extensions and dispatches events to their handlers."""

    def __init__(self, extensions: list[Extension] | None = None) -> None:
        self.extensions: list[Extension] = list(extensions or [])
        self.session: SessionHost | None = None
        """The ``AgentSession`` once bound (action methods need it)."""
        self.ctx: ExtensionContext | None = None
        """The ``ExtensionContext`` handed to handlers (set by the session when it binds)."""
        self.command_ctx: ExtensionCommandContext | None = None
        self.on_error: Callable[[ExtensionErrorEvent], None] | None = None
        self.on_change: Callable[[], None] | None = None
        """Called after handlers or tools are registered at run time."""
        self.errors: list[ExtensionErrorEvent] = []
        self.by_event: dict[str, HandlerList] = {}
        """Handlers per event name (precomputed; read-only for callers)."""
        self.rebuild()

    # ------------------------------------------------------------------ registry
    def add(self, ext: Extension) -> None:
        self.extensions.append(ext)
        self.rebuild()

    def remove(self, ext: Extension) -> None:
        if ext in self.extensions:
            self.extensions.remove(ext)
            self.rebuild()

    def rebuild(self) -> None:
        """Recompute the per-event handler lists (call after a registration)."""
        by: dict[str, HandlerList] = {}
        for ext in self.extensions:
            for name, fns in ext.handlers.items():
                by.setdefault(name, []).extend((ext, fn) for fn in fns)
        cov = suite_coverage.COLLECTOR
        self.by_event = by if cov is None else cov.hooks(by)  # coverage: a dispatch that finds handlers is noted

    def changed(self) -> None:
        self.rebuild()
        if self.on_change is not None:
            self.on_change()

    def has(self, event: str) -> bool:
        return event in self.by_event

    def detach(self) -> None:
        """Drop the bound session, its contexts and callbacks (the session is disposed): the
        session and runner no longer reference each other, so both are freed without the cyclic GC."""
        self.session = self.ctx = self.command_ctx = None
        self.on_error = self.on_change = None

    def handlers(self, event: str) -> HandlerList:
        return self.by_event.get(event, [])

    def _first_wins(self, entries: Callable[[Extension], Iterable[tuple[str, _T]]]) -> dict[str, _T]:
        """``entries(ext)`` of every extension by name, in load order; the first of a name wins."""
        out: dict[str, _T] = {}
        for ext in self.extensions:
            for name, value in entries(ext):
                out.setdefault(name, value)
        return out

    def providers(self) -> dict[str, Any]:
        """Extension providers by name (``RegisteredProvider``); the first registration of a name wins."""
        return self._first_wins(lambda ext: ext.providers.items())

    def ttsr_rules(self) -> list[Any]:
        """Every extension's ``add_ttsr_rule`` rules, in load order."""
        return [r for ext in self.extensions for r in ext.ttsr_rules]

    def tools(self) -> dict[str, AgentTool]:
        """Extension tools by name; the first registration of a name wins across extensions."""
        return self._first_wins(lambda ext: ext.tools.items())

    def tool_sources(self) -> dict[str, Extension]:
        return self._first_wins(lambda ext: ((name, ext) for name in ext.tools))

    def command(self, name: str) -> RegisteredCommand | None:
        return self._first_wins(lambda ext: ext.commands.items()).get(name)

    def commands(self) -> list[CommandInfo]:
        return list(self._first_wins(
            lambda ext: ((c.name, CommandInfo(c.name, c.description, "extension", ext.path))
                         for c in ext.commands.values())
        ).values())

    def flags(self) -> dict[str, RegisteredFlag]:
        return self._first_wins(lambda ext: ext.flags.items())

    # ------------------------------------------------------------------ errors
    def report(self, ext: Extension | None, event: str, err: BaseException) -> ExtensionErrorEvent:
        stack = "".join(traceback.format_exception(type(err), err, err.__traceback__))
        ev = ExtensionErrorEvent(
            ext.path if ext is not None else "<unknown>", event, f"{type(err).__name__}: {err}", stack, err
        )
        self.errors.append(ev)
        if self.on_error is not None:
            with contextlib.suppress(Exception):  # a failing error listener must not hide the original error
                self.on_error(ev)
        return ev

    # ------------------------------------------------------------------ generic events
    def emit(self, ev: Any) -> Awaitable[None] | None:
        """Dispatch an event whose results are ignored. Returns an awaitable only if a handler is async."""
        hs = self.by_event.get(ev.type)
        if not hs:
            return None
        ctx = self.ctx
        for i, (ext, fn) in enumerate(hs):
            try:
                r = fn(ev, ctx)
            except Exception as err:
                self.report(ext, ev.type, err)
                continue
            if r is not None and _is_awaitable(r):
                return self._dispatch_async(r, i + 1, ev, hs, _go, self._reported)
        return None

    async def emit_async(self, ev: Any) -> None:
        r = self.emit(ev)
        if r is not None:
            await r

    async def _dispatch_async(
        self, first: Awaitable[Any], start: int, ev: Any, hs: HandlerList, step: _Step, failed: _Step,
        changed: bool = False,
    ) -> Any:
        """The rest of a dispatch (``emit``, ``emit_tool_call``, ``emit_tool_result``) once the
        handler before ``start`` returned the awaitable ``first``.

        Each handler's result (awaited; when not None) goes to ``step(ev, ext, result)`` and each
        raise to ``failed(ev, ext, error)``. They return ``_GO`` to go on, ``_CHANGED`` to go on with
        ``ev`` patched, or the value to return at once. At the end: the patch of a changed
        ``tool_result`` event, else None.
        """
        ctx = self.ctx
        for i in range(start - 1, len(hs)):
            ext, fn = hs[i]
            try:
                r = first if i < start else fn(ev, ctx)
                if r is not None and _is_awaitable(r):
                    r = await r
            except Exception as err:
                out = failed(ev, ext, err)
            else:
                out = _GO if r is None else step(ev, ext, r)
            if out is _CHANGED:
                changed = True
            elif out is not _GO:
                return out
        return _patch_of(ev) if changed else None

    def _reported(self, ev: Any, ext: Extension, err: BaseException) -> object:
        self.report(ext, ev.type, err)
        return _GO

    # ------------------------------------------------------------------ tool_call
    def emit_tool_call(self, ev: ToolCallEvent) -> BeforeToolCallResult | Awaitable[BeforeToolCallResult | None] | None:
        """First block wins; a raising handler blocks. Sync when every handler is sync."""
        hs = self.by_event.get("tool_call")
        if not hs:
            return None
        ctx = self.ctx
        i = 0
        for ext, fn in hs:
            i += 1
            try:
                r = fn(ev, ctx)
            except Exception as err:
                return self._block_for(ev, ext, err)
            if r is None:
                continue
            if _is_awaitable(r):
                return self._dispatch_async(r, i, ev, hs, _block_or_go, self._block_for)
            block = _as_block(r)
            if block is not None:
                return block
        return None

    def _block_for(self, ev: Any, ext: Extension, err: BaseException) -> BeforeToolCallResult:
        self.report(ext, "tool_call", err)
        return BeforeToolCallResult(True, f"{type(err).__name__}: {err}")

    # ------------------------------------------------------------------ tool_result
    def emit_tool_result(
        self, ev: ToolResultEvent
    ) -> AfterToolCallResult | Awaitable[AfterToolCallResult | None] | None:
        """Patches chain like middleware; returns the combined patch (or None when nothing changed)."""
        hs = self.by_event.get("tool_result")
        if not hs:
            return None
        ctx = self.ctx
        changed = False
        i = 0
        for ext, fn in hs:
            i += 1
            try:
                r = fn(ev, ctx)
            except Exception as err:
                self.report(ext, "tool_result", err)
                continue
            if r is None:
                continue
            if _is_awaitable(r):
                return self._dispatch_async(r, i, ev, hs, self._patch, self._reported, changed)
            if self._patch(ev, ext, r) is _CHANGED:
                changed = True
        return _patch_of(ev) if changed else None

    def _patch(self, ev: ToolResultEvent, ext: Extension, r: Any) -> object:
        try:
            return _CHANGED if _apply_patch(ev, r) else _GO
        except Exception as err:
            self.report(ext, "tool_result", err)
            return _GO

    # ------------------------------------------------------------------ prompting
    async def _results(self, ev: Any, *, with_ctx: bool = True) -> AsyncIterator[tuple[Extension, Any]]:
        """``(extension, result)`` of each handler of ``ev`` that returned something (a raise is reported).
        It holds nothing to release, so a caller may stop early."""
        for ext, fn in self.handlers(ev.type):
            try:
                r = fn(ev, self.ctx if with_ctx else None)
                if r is not None and _is_awaitable(r):
                    r = await r
            except Exception as err:
                self.report(ext, ev.type, err)
                continue
            if r is not None:
                yield ext, r

    async def emit_first(self, ev: Any) -> Any:
        """The first non-empty result (``user_bash``), or None."""
        async for _, r in self._results(ev):
            return r
        return None

    async def emit_session_directory(self, ev: Any) -> str | None:
        """``session_directory`` (CLI startup, handlers get no ctx): the last ``session_dir`` returned."""
        out: str | None = None
        async for _, r in self._results(ev, with_ctx=False):
            d = field(r, "session_dir")
            if isinstance(d, str) and d:
                out = d
        return out

    async def emit_input(self, ev: InputEvent) -> InputResult:
        """``transform`` chains; the first ``handled`` short-circuits."""
        transformed = False
        async for _, r in self._results(ev):
            action = field(r, "action")
            if action == "handled":
                return InputResult("handled")
            if action == "transform":
                text = field(r, "text")
                if isinstance(text, str):
                    ev.text = text
                images = field(r, "images")
                if images is not MISSING and images is not None:
                    ev.images = list(images)
                transformed = True
        return InputResult("transform" if transformed else "continue", ev.text, ev.images)

    async def emit_before_agent_start(self, ev: BeforeAgentStartEvent) -> tuple[list[CustomMessageSpec], str | None]:
        """Collect every returned message; chain the system prompt (``None`` when nobody changed it)."""
        messages: list[CustomMessageSpec] = []
        prompt: str | None = None
        async for ext, r in self._results(ev):
            msg = field(r, "message")
            if msg is not MISSING and msg is not None:
                try:
                    messages.append(CustomMessageSpec.of(msg, "a before_agent_start message"))
                except Exception as err:
                    self.report(ext, "before_agent_start", err)
            sp = field(r, "system_prompt")
            if isinstance(sp, str):
                prompt = sp
                ev.system_prompt = sp
        return messages, prompt

    async def emit_context(self, messages: list[Any]) -> list[Any]:
        """Chain ``messages`` replacements over the (already copied) list given."""
        ev = ContextEvent(messages)
        async for _, r in self._results(ev):
            new = field(r, "messages")
            if isinstance(new, list):
                ev.messages = new
        return ev.messages

    async def emit_session_before(self, ev: Any) -> Any:
        """``session_before_*``: the first result with ``cancel`` wins; else the last non-empty result."""
        last: Any = None
        async for _, r in self._results(ev):
            if field(r, "cancel") is True:
                return r
            last = r
        return last

    async def emit_resources_discover(self, ev: ResourcesDiscoverEvent) -> tuple[list[str], list[str]]:
        skills: list[str] = []
        prompts: list[str] = []
        async for _, r in self._results(ev):
            sp = field(r, "skill_paths")
            if isinstance(sp, list):
                skills.extend(str(p) for p in sp)
            pp = field(r, "prompt_paths")
            if isinstance(pp, list):
                prompts.extend(str(p) for p in pp)
        return skills, prompts

    def emit_before_provider_request(self, payload: Any) -> Any:
        """Sync (providers call ``on_payload`` synchronously): a non-None result replaces the payload."""
        from autocue.extensions.events import BeforeProviderRequestEvent

        ev = BeforeProviderRequestEvent(payload)
        for ext, fn in self.handlers("before_provider_request"):
            try:
                r = fn(ev, self.ctx)
                if r is not None and _is_awaitable(r):
                    if hasattr(r, "close"):
                        r.close()
                    raise TypeError("before_provider_request handlers must be synchronous")
            except Exception as err:
                self.report(ext, "before_provider_request", err)
                continue
            if r is not None:
                ev.payload = r
        return ev.payload


def _go(ev: Any, ext: Extension, r: Any) -> object:
    return _GO


def _block_or_go(ev: Any, ext: Extension, r: Any) -> object:
    block = _as_block(r)
    return _GO if block is None else block


def _as_block(r: Any) -> BeforeToolCallResult | None:
    if isinstance(r, BeforeToolCallResult):
        return r if r.block else None
    block = field(r, "block")
    if block is True:
        reason = field(r, "reason")
        return BeforeToolCallResult(True, reason if isinstance(reason, str) else None)
    return None


def _content(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [TextContent(value)]
    out: list[Any] = []
    for b in value:
        out.append(content_from_json(b) if isinstance(b, dict) else b)
    return out


def _patch_of(ev: ToolResultEvent) -> AfterToolCallResult:
    return AfterToolCallResult(ev.content, ev.details, ev.is_error)


def _apply_patch(ev: ToolResultEvent, r: Any) -> bool:
    changed = False
    if isinstance(r, AfterToolCallResult):
        from autocue.agent.loop import _UNSET

        c, d, e = (
            None if r.content is _UNSET else r.content,
            MISSING if r.details is _UNSET else r.details,
            None if r.is_error is _UNSET else r.is_error,
        )
    else:
        c = field(r, "content")
        d = field(r, "details")
        e = field(r, "is_error")
        if not isinstance(r, dict):
            # dataclass patches: None means "keep"
            d = MISSING if d is None else d
    if c is not MISSING and c is not None:
        ev.content = _content(c)
        changed = True
    if d is not MISSING:
        ev.details = d
        changed = True
    if e is not MISSING and e is not None:
        ev.is_error = bool(e)
        changed = True
    return changed


__all__ = ["ExtensionRunner"]
