"""``AgentSession``: the agent plus extensions, persistence, slash commands, compaction and retry.

Public surface::

    session = AgentSession(provider=..., model=..., session_manager=..., settings=..., cwd=...,
                           tools=..., extensions=[...], ui=..., has_ui=...)
    await session.bind_extensions()          # fires session_start (prompt() binds on first use)
    await session.prompt("hi")               # runs until the agent stops (retries included)
    await session.continue_() / steer(text) / follow_up(text) / abort()
    session.subscribe(listener)              # agent events + auto_* + extension_error
    await session.compact() / set_model(m) / navigate_tree(id) / new_session()
    session.set_thinking_level(l) / set_active_tools(names) / get_all_tools() / get_context_usage()
    await session.dispose()                  # fires session_shutdown once

Every agent event goes first to the extensions (awaited), then to ``subscribe`` listeners,
then to persistence (``message_end`` of user/assistant/toolResult/bashExecution/custom
messages). Tool hooks run once per call at the agent level (``Agent.before_tool_call`` /
``after_tool_call``); the ``context`` hook runs through ``Agent.transform_context`` only while
a handler is subscribed, so a session without one never copies history.

``create_agent_session(...)`` is the async factory: it loads settings, resources and
extensions (with discovery), builds the session and binds it, and returns
``CreateAgentSessionResult(session, extensions_result)``.
"""

from __future__ import annotations

import asyncio
import copy
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from autocue.agent.agent import Agent
from autocue.agent.events import AgentEvent, MessageEndEvent, MessageStartEvent
from autocue.agent.loop import AfterToolCallContext, AfterToolCallResult, BeforeToolCallResult, ToolCallContext
from autocue.agent.tool import AgentTool
from autocue.extensions.context import (
    ContextUsage,
    ExtensionCommandContext,
    ExtensionContext,
    ReadonlySessionManager,
)
from autocue.extensions.events import (
    BeforeAgentStartEvent,
    CompactionOverride,
    CustomMessageSpec,
    ExtensionErrorEvent,
    InputEvent,
    ModelSelectEvent,
    ResourcesDiscoverEvent,
    SessionBeforeCompactEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionCompactEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionSwitchEvent,
    SessionTreeEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from autocue.extensions.extension import CommandInfo
from autocue.extensions.host import ToolInfo
from autocue.extensions.loader import ExtensionSpec, ExtensionsResult, finish_loading, load_extensions
from autocue.extensions.runner import ExtensionRunner, is_missing, result_field
from autocue.extensions.ui import NO_UI, ExtensionUIContext
from autocue.llm.abort import AbortController, AbortSignal
from autocue.llm.stream import THINKING_LEVELS, Provider, StreamOptions
from autocue.llm.types import AssistantMessage, ImageContent, Model, TextContent, UserContent, UserMessage
from autocue.session.errors import CompactionError, SessionBusyError, SessionDisposedError
from autocue.session.events import (
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
)
from autocue.session.manager import SessionManager
from autocue.session.messages import CustomMessage, convert_message
from autocue.session.resources import (
    PromptTemplate,
    Resources,
    Skill,
    expand_prompt_template,
    expand_skill_command,
    format_skills_for_prompt,
    load_resources,
)
from autocue.session.retry import is_retryable_error, retry_delay_ms
from autocue.session.settings import Settings
from autocue.tools import BUILTIN_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_builtin_tools

SessionListener = Callable[[Any], "Awaitable[None] | None"]
StreamingBehavior = Literal["steer", "follow_up"]


def _builtin_tools(cwd: str) -> tuple[dict[str, AgentTool], list[str]]:
    """``autocue.tools`` built-ins (all of them) and the names active by default."""
    tools = dict(create_builtin_tools(cwd, BUILTIN_TOOL_NAMES))
    return tools, [n for n in DEFAULT_TOOL_NAMES if n in tools]


_MESSAGE_ENTRY_ROLES = frozenset(("user", "assistant", "toolResult", "bashExecution"))
"""Roles persisted as plain message entries (``custom`` messages get their own entry type)."""


def _nothing() -> None:
    """The unsubscriber of a disposed session (there is nothing left to remove)."""


class AgentSession:
    """An ``Agent`` with extensions, a session tree, slash commands, compaction and auto-retry."""

    def __init__(
        self,
        *,
        provider: Provider,
        model: Model | None = None,
        session_manager: SessionManager | None = None,
        settings: Settings | None = None,
        cwd: str | os.PathLike[str] | None = None,
        tools: Sequence[AgentTool] | Mapping[str, AgentTool] | None = None,
        active_tools: Sequence[str] | None = None,
        extensions: Sequence[ExtensionSpec] | ExtensionsResult | None = None,
        extension_factories: Sequence[Callable[[Any], Any]] = (),
        discover_extensions: bool = False,
        agent_dir: str | os.PathLike[str] | None = None,
        ui: ExtensionUIContext | None = None,
        has_ui: bool | None = None,
        system_prompt: str = "",
        thinking_level: str | None = None,
        resources: Resources | None = None,
        skills: Sequence[Skill | str | os.PathLike[str]] | None = None,
        prompt_templates: Sequence[PromptTemplate] | None = None,
        flag_values: dict[str, Any] | None = None,
    ) -> None:
        from autocue.script.provider import scripted_model

        self.cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
        self.provider = provider
        self.settings = settings if settings is not None else Settings()
        self.session_manager = session_manager if session_manager is not None else SessionManager.in_memory(self.cwd)
        self.readonly_session_manager = ReadonlySessionManager(self.session_manager)
        self.ui: ExtensionUIContext = ui if ui is not None else NO_UI
        self.has_ui = has_ui if has_ui is not None else ui is not None
        self._base_system_prompt = system_prompt

        # resources
        res = resources if resources is not None else Resources()
        if skills is not None:
            res.skills = []
            for s in skills:
                if isinstance(s, Skill):
                    res.skills.append(s)
                else:
                    found = load_resources(self.cwd, skill_paths=[s], discover=False)
                    res.skills.extend(found.skills)
                    res.diagnostics.extend(found.diagnostics)
        if prompt_templates is not None:
            res.prompts = list(prompt_templates)
        self.resources = res

        # extensions
        if isinstance(extensions, ExtensionsResult):
            self.extensions_result = extensions
        else:
            specs = list(extensions or ()) + list(self.settings.extensions)
            self.extensions_result = load_extensions(
                specs, cwd=self.cwd, factories=extension_factories, discover=discover_extensions,
                agent_dir=agent_dir, flag_values=flag_values,
            )
        self.runner: ExtensionRunner = self.extensions_result.runner
        self.runner.session = self
        self.runner.ctx = ExtensionContext(self)
        self.runner.command_ctx = ExtensionCommandContext(self)
        self.runner.on_error = self._on_extension_error
        self.runner.on_change = self._refresh

        # tools
        if tools is None:
            self._base_tools, default_active = _builtin_tools(self.cwd)
        else:
            items = tools.values() if isinstance(tools, Mapping) else tools
            self._base_tools = {t.name: t for t in items}
            default_active = list(self._base_tools)
        self._active: list[str] | None = list(active_tools) if active_tools is not None else None
        self._default_active = default_active
        self._known_ext_tools: set[str] = set()

        # restore or start the session tree
        sm = self.session_manager
        restored = bool(sm.get_entries())
        ctx = sm.build_session_context() if restored else None
        level = thinking_level or (ctx.thinking_level if ctx is not None else None)
        level = level or self.settings.default_thinking_level or "off"
        self.agent = Agent(
            provider=provider,
            model=model if model is not None else scripted_model(),
            messages=ctx.messages if ctx is not None else (),
            thinking_level=level,
            convert_message=convert_message,
            tool_execution=self.settings.tool_execution,  # type: ignore[arg-type]
            steering_mode=self.settings.steering_mode,  # type: ignore[arg-type]
            follow_up_mode=self.settings.follow_up_mode,  # type: ignore[arg-type]
            session_id=sm.get_session_id(),
            stream_options=self._stream_options,
        )
        if not restored:
            sm.append_model_change(self.agent.state.model.provider, self.agent.state.model.id)
            sm.append_thinking_level_change(level)

        self._listeners: list[SessionListener] = []
        self._unsubscribe_agent = self.agent.subscribe(self._on_agent_event)
        self._next_turn: list[Any] = []
        self._bound = False
        self._disposed = False
        self._running = 0
        self._idle_event: asyncio.Event | None = None
        self._retry_abort: asyncio.Event | None = None
        self._compaction_abort: AbortController | None = None
        self._retry_attempt = 0
        self._background: set[asyncio.Task[Any]] = set()
        self._last_options: StreamOptions | None = None
        self._refresh()

    # ------------------------------------------------------------------ properties
    @property
    def model(self) -> Model:
        return self.agent.state.model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[Any]:
        """The agent's current context (a live list; do not mutate)."""
        return self.agent.state.messages

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def is_streaming(self) -> bool:
        """True while a prompt, retry or compaction of this session is in progress."""
        return self._running > 0 or self.agent.is_streaming

    @property
    def is_disposed(self) -> bool:
        return self._disposed

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_id(self) -> str:
        return self.session_manager.get_session_id()

    # ------------------------------------------------------------------ tools
    def _all_tools(self) -> dict[str, AgentTool]:
        out = dict(self._base_tools)
        out.update(self.runner.tools())
        return out

    def get_all_tools(self) -> list[ToolInfo]:
        """Built-in (or ``tools=``) and extension tools; an extension tool replaces a built-in of its name."""
        active = set(self.get_active_tool_names())
        sources = self.runner.tool_sources()
        out: list[ToolInfo] = []
        for name, t in self._all_tools().items():
            ext = sources.get(name)
            out.append(ToolInfo(
                name, t.description, t.parameters, "extension" if ext else "builtin", name in active,
                ext.path if ext else None, bool(ext) and name in self._base_tools,
            ))
        return out

    def get_active_tool_names(self) -> list[str]:
        if self._active is not None:
            return list(self._active)
        ext = [n for n in self.runner.tools() if n not in self._default_active]
        return self._default_active + ext

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Make exactly ``names`` available to the model (also rebuilds the system prompt)."""
        known = self._all_tools()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(
                f"set_active_tools: unknown tool(s) {', '.join(unknown)}; known tools: {', '.join(known) or 'none'}"
            )
        self._active = list(dict.fromkeys(names))
        self._refresh()

    def _refresh(self) -> None:
        """Recompute tools, system prompt and hook seams after a registration or tool change."""
        ext_tools = self.runner.tools()
        new_names = [n for n in ext_tools if n not in self._known_ext_tools]
        self._known_ext_tools.update(new_names)
        if self._active is not None:
            for n in new_names:
                if n not in self._active:
                    self._active.append(n)
        all_tools = self._all_tools()
        names = self.get_active_tool_names()
        self.agent.set_tools([all_tools[n] for n in names if n in all_tools])
        self.agent.set_system_prompt(self._effective_system_prompt(names))
        r = self.runner
        self.agent.before_tool_call = self._before_tool_call if r.has("tool_call") else None
        self.agent.after_tool_call = self._after_tool_call if r.has("tool_result") else None
        self.agent.transform_context = self._transform_context if r.has("context") else None

    def _effective_system_prompt(self, active: Sequence[str] | None = None) -> str:
        names = active if active is not None else self.get_active_tool_names()
        prompt = self._base_system_prompt
        if "read" in names and self.resources.skills:
            prompt += format_skills_for_prompt(self.resources.skills)
        return prompt

    def set_system_prompt(self, prompt: str) -> None:
        """Replace the base system prompt (skills are appended to it as before)."""
        self._base_system_prompt = prompt
        self.agent.set_system_prompt(self._effective_system_prompt())

    # ------------------------------------------------------------------ hook seams
    def _before_tool_call(
        self, c: ToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | Awaitable[BeforeToolCallResult | None] | None:
        tc = c.tool_call
        return self.runner.emit_tool_call(ToolCallEvent(tc.id, tc.name, c.args))

    def _after_tool_call(
        self, c: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | Awaitable[AfterToolCallResult | None] | None:
        tc, r = c.tool_call, c.result
        return self.runner.emit_tool_result(
            ToolResultEvent(tc.id, tc.name, c.args, list(r.content), r.details, c.is_error)
        )

    async def _transform_context(self, messages: list[Any], signal: AbortSignal) -> list[Any]:
        return await self.runner.emit_context(copy.deepcopy(messages))

    def _stream_options(self, signal: AbortSignal) -> StreamOptions:
        """The options of the next model call; the last ones are reused while nothing in them changed."""
        st = self.agent.state
        runner = self.runner
        hooked = "before_provider_request" in runner.by_event
        reasoning = st.thinking_level if st.thinking_level != "off" else None
        sid = self.session_manager.get_session_id()
        o = self._last_options
        if (
            o is not None and o.signal is signal and o.reasoning == reasoning and o.session_id == sid
            and (o.on_payload is not None) == hooked
        ):
            return o
        o = StreamOptions(
            signal=signal,
            reasoning=reasoning,
            session_id=sid,
            on_payload=runner.emit_before_provider_request if hooked else None,
        )
        self._last_options = o
        return o

    # ------------------------------------------------------------------ events
    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Listen to agent events and session events (``auto_*``, ``extension_error``); returns an unsubscriber."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _on_agent_event(self, ev: AgentEvent) -> Awaitable[None] | None:
        t = ev.type
        if t in self.runner.by_event:
            r = self.runner.emit(ev)
            if r is not None:
                return self._on_agent_event_async(r, ev)
        for fn in self._listeners:
            r2 = fn(ev)
            if r2 is not None:
                return self._listeners_rest(r2, ev, fn)
        if t == "message_end":
            m: Any = ev.message  # type: ignore[union-attr]
            if m.role in _MESSAGE_ENTRY_ROLES:  # inline of _persist's common case
                self.session_manager.append_message(m)
            else:
                self._persist(m)
        return None

    async def _on_agent_event_async(self, first: Awaitable[None], ev: AgentEvent) -> None:
        await first
        for fn in list(self._listeners):
            r = fn(ev)
            if r is not None:
                await r
        if ev.type == "message_end":
            self._persist(ev.message)

    async def _listeners_rest(self, first: Awaitable[None], ev: AgentEvent, after: SessionListener) -> None:
        await first
        listeners = self._listeners
        rest = listeners[listeners.index(after) + 1 :] if after in listeners else []
        for fn in rest:
            r = fn(ev)
            if r is not None:
                await r
        if ev.type == "message_end":
            self._persist(ev.message)

    def _persist(self, m: Any) -> None:
        role = m.role
        if role == "custom":
            self.session_manager.append_custom_message_entry(m.custom_type, m.content, m.display, m.details)
        elif role in _MESSAGE_ENTRY_ROLES:
            self.session_manager.append_message(m)

    async def _emit_session_event(self, ev: Any) -> None:
        for fn in list(self._listeners):
            r = fn(ev)
            if r is not None:
                await r

    def _on_extension_error(self, ev: ExtensionErrorEvent) -> None:
        for fn in list(self._listeners):
            try:
                r = fn(ev)
            except Exception:
                continue
            if r is not None:
                self._track(asyncio.ensure_future(r))

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._background.add(task)  # type: ignore[arg-type]
        task.add_done_callback(self._background.discard)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ binding / lifecycle
    async def bind_extensions(self, ui: ExtensionUIContext | None = None, has_ui: bool | None = None) -> None:
        """Set the UI, finish async extension loading, fire ``session_start`` then ``resources_discover``.

        ``prompt`` binds on first use; call this yourself to fire ``session_start`` earlier or to
        give a UI. ``session_start`` fires once per session.
        """
        self._check_alive()
        if ui is not None:
            self.ui = ui
            self.has_ui = True if has_ui is None else has_ui
        elif has_ui is not None:
            self.has_ui = has_ui
        if self._bound:
            return
        self._bound = True
        if any(e.pending is not None for e in self.extensions_result.extensions):
            await finish_loading(self.extensions_result)
        self._refresh()
        await self.runner.emit_async(SessionStartEvent("startup"))
        if self.runner.has("resources_discover"):
            skill_paths, prompt_paths = await self.runner.emit_resources_discover(
                ResourcesDiscoverEvent(self.cwd, "startup")
            )
            if skill_paths or prompt_paths:
                extra = load_resources(self.cwd, skill_paths=skill_paths, prompt_paths=prompt_paths, discover=False)
                names = {s.name for s in self.resources.skills}
                self.resources.skills += [s for s in extra.skills if s.name not in names]
                pnames = {p.name for p in self.resources.prompts}
                self.resources.prompts += [p for p in extra.prompts if p.name not in pnames]
                self.resources.diagnostics += extra.diagnostics
                self._refresh()

    async def _ensure_bound(self) -> None:
        if not self._bound:
            await self.bind_extensions()

    def _check_alive(self) -> None:
        if self._disposed:
            raise SessionDisposedError("this AgentSession was disposed; create a new one")

    async def dispose(self) -> None:
        """Abort any run, fire ``session_shutdown`` (once), and detach. Idempotent."""
        if self._disposed:
            return
        self._disposed = True
        if self.is_streaming:
            self.abort_nowait()
            await self.agent.wait_for_idle()
        await self.runner.emit_async(SessionShutdownEvent())
        self._unsubscribe_agent()
        self.session_manager.close()
        for t in list(self._background):
            if not t.done():
                t.cancel()
        self._detach()

    def _detach(self) -> None:
        """Break the reference cycles between this session, its agent and its extension runner
        (hooks, listeners, contexts), so a disposed session and everything its run made (messages,
        entries, events) are freed as soon as the caller drops them, not at the next full GC pass.
        State stays readable: messages, entries and the session file are untouched."""
        a = self.agent
        a.before_tool_call = a.after_tool_call = a.transform_context = a.stream_options = None
        self._unsubscribe_agent = _nothing
        self._listeners.clear()
        self.runner.detach()

    async def __aenter__(self) -> AgentSession:
        await self._ensure_bound()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.dispose()

    # ------------------------------------------------------------------ idle tracking
    def _begin(self) -> None:
        self._running += 1
        if self._idle_event is None:
            self._idle_event = asyncio.Event()
        self._idle_event.clear()

    def _end(self) -> None:
        self._running -= 1
        if self._running == 0 and self._idle_event is not None:
            self._idle_event.set()

    async def wait_for_idle(self) -> None:
        """Wait until no prompt, retry or compaction of this session runs."""
        while self._running > 0 and self._idle_event is not None:
            await self._idle_event.wait()
        await self.agent.wait_for_idle()

    # ------------------------------------------------------------------ prompting
    def _user_message(self, text: str, images: Sequence[ImageContent] | None) -> UserMessage:
        # pi always stores prompts as content blocks, never as a bare string.
        return UserMessage([TextContent(text), *(images or ())])

    def _expand(self, text: str) -> str:
        if self.settings.enable_skill_commands and text.startswith("/skill:"):
            text = expand_skill_command(text, self.resources.skills)
        return expand_prompt_template(text, self.resources.prompts)

    async def prompt(
        self,
        text: str,
        *,
        images: Sequence[ImageContent] | None = None,
        expand_prompt_templates: bool = True,
        streaming_behavior: StreamingBehavior | None = None,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
    ) -> None:
        """Send ``text`` and run until the agent stops (auto-retry and auto-compaction included).

        ``/name args`` runs a registered command instead (nothing goes to the model);
        ``/skill:name`` and ``/template`` expand first. While the agent runs, give
        ``streaming_behavior="steer"`` or ``"follow_up"`` to queue the message.
        """
        self._check_alive()
        await self._ensure_bound()
        if expand_prompt_templates and text.startswith("/") and await self._try_command(text):
            return
        img: list[ImageContent] | None = list(images) if images else None
        if self.runner.has("input"):
            res = await self.runner.emit_input(InputEvent(text, img, source))
            if res.action == "handled":
                return
            text = res.text if res.text is not None else text
            img = res.images
        if expand_prompt_templates:
            text = self._expand(text)
        if self.is_streaming:
            if streaming_behavior == "steer":
                self.agent.steer(self._user_message(text, img))
                return
            if streaming_behavior == "follow_up":
                self.agent.follow_up(self._user_message(text, img))
                return
            raise SessionBusyError(
                "Agent is already processing. Pass streaming_behavior='steer' or 'follow_up' to queue the "
                "message, or await session.wait_for_idle() first."
            )
        self._begin()
        try:
            await self._check_threshold_compaction()
            messages: list[Any] = [self._user_message(text, img)]
            messages += self._next_turn
            self._next_turn = []
            if self.runner.has("before_agent_start"):
                extra, sp = await self.runner.emit_before_agent_start(
                    BeforeAgentStartEvent(text, img, self._effective_system_prompt())
                )
                messages += [CustomMessage(m.custom_type, m.content, m.display, m.details) for m in extra]
                self.agent.set_system_prompt(sp if sp is not None else self._effective_system_prompt())
            await self._run(lambda: self.agent.prompt(messages))
        finally:
            self._end()

    async def continue_(self) -> None:
        """Run again from the current context (its last message must not be an assistant reply)."""
        self._check_alive()
        await self._ensure_bound()
        self._begin()
        try:
            await self._run(self.agent.continue_)
        finally:
            self._end()

    async def _try_command(self, text: str) -> bool:
        name, _, args = text[1:].partition(" ")
        cmd = self.runner.command(name)
        if cmd is None:
            return False
        try:
            r = cmd.handler(args.strip(), self.runner.command_ctx)
            if r is not None and hasattr(r, "__await__"):
                await r
        except Exception as err:
            self.runner.report(cmd.extension, f"command:/{name}", err)
        return True

    async def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered after the current tool calls (before the next model call)."""
        self._check_queueable(text)
        self.agent.steer(self._user_message(self._expand(text), images))

    async def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered once the agent would otherwise stop."""
        self._check_queueable(text)
        self.agent.follow_up(self._user_message(self._expand(text), images))

    def _check_queueable(self, text: str) -> None:
        self._check_alive()
        if text.startswith("/") and self.runner.command(text[1:].partition(" ")[0]) is not None:
            raise ValueError(
                f"Extension commands cannot be queued: {text.split()[0]!r} runs immediately; call prompt() with it "
                "once the agent is idle."
            )

    def has_pending_messages(self) -> bool:
        return self.agent.has_queued_messages() or bool(self._next_turn)

    async def send_custom_message(
        self,
        message: CustomMessageSpec | CustomMessage | dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "follow_up", "next_turn"] = "steer",
    ) -> None:
        """Add an extension message (role ``custom``, in the model's context); see ``ExtensionAPI.send_message``."""
        self._check_alive()
        if isinstance(message, CustomMessage):
            m = message
        else:
            spec = _custom_spec(message)
            m = CustomMessage(spec.custom_type, spec.content, spec.display, spec.details)
        if deliver_as == "next_turn":
            self._next_turn.append(m)
            return
        if self.is_streaming:
            if deliver_as == "follow_up":
                self.agent.follow_up(m)
            else:
                self.agent.steer(m)
            return
        if trigger_turn:
            await self._ensure_bound()
            self._begin()
            try:
                await self._run(lambda: self.agent.prompt(m))
            finally:
                self._end()
            return
        self.agent.append_message(m)
        for ev in (MessageStartEvent(m), MessageEndEvent(m)):
            r = self._on_agent_event(ev)
            if r is not None:
                await r

    async def send_user_message(
        self,
        content: str | Sequence[UserContent],
        *,
        deliver_as: Literal["steer", "follow_up", "next_turn"] | None = None,
    ) -> None:
        """A user message from an extension: prompt (no template expansion), or queue while running."""
        if isinstance(content, str):
            text, images = content, None
        else:
            text = "\n".join(b.text for b in content if isinstance(b, TextContent))
            images = [b for b in content if isinstance(b, ImageContent)] or None
        if self.is_streaming:
            if deliver_as is None:
                raise SessionBusyError(
                    "send_user_message while the agent is running needs deliver_as='steer' or 'follow_up'"
                )
            msg = self._user_message(text, images)
            if deliver_as == "follow_up":
                self.agent.follow_up(msg)
            elif deliver_as == "next_turn":
                self._next_turn.append(msg)
            else:
                self.agent.steer(msg)
            return
        await self.prompt(text, images=images, expand_prompt_templates=False, source="extension")

    # ------------------------------------------------------------------ run loop: retry + compaction
    async def _run(self, start: Callable[[], Awaitable[Any]]) -> None:
        self._retry_attempt = 0
        overflow_tried = False
        self._retry_abort = asyncio.Event()
        await start()
        while True:
            last = self._last_assistant()
            if last is None:
                break
            if last.stop_reason == "error":
                overflow = self._is_overflow(last)
                if not overflow and self.settings.retry.enabled and is_retryable_error(last):
                    if await self._retry(last):
                        continue
                    break
                if self._retry_attempt > 0:
                    await self._emit_session_event(AutoRetryEndEvent(False, self._retry_attempt, last.error_message))
                    self._retry_attempt = 0
                if overflow and self.settings.compaction.enabled and not overflow_tried:
                    overflow_tried = True
                    if await self._auto_compact("overflow", will_retry=True):
                        self._drop_trailing_errors()
                        msgs = self.agent.state.messages
                        if msgs and msgs[-1].role != "assistant":
                            await self.agent.continue_()
                            continue
                break
            if self._retry_attempt > 0:
                await self._emit_session_event(AutoRetryEndEvent(True, self._retry_attempt))
                self._retry_attempt = 0
            if last.stop_reason != "aborted":
                await self._check_threshold_compaction()
            break

    def _last_assistant(self) -> AssistantMessage | None:
        msgs = self.agent.state.messages
        if msgs and msgs[-1].role == "assistant":
            return msgs[-1]  # type: ignore[return-value]
        return None

    def _drop_trailing_errors(self) -> None:
        msgs = self.agent.state.messages
        while msgs and msgs[-1].role == "assistant" and msgs[-1].stop_reason in ("error", "aborted"):  # type: ignore[attr-defined]
            msgs.pop()

    def _is_overflow(self, m: AssistantMessage) -> bool:
        from autocue.session.compaction import is_context_overflow

        return bool(is_context_overflow(m, self.model.context_window))

    async def _retry(self, msg: AssistantMessage) -> bool:
        rs = self.settings.retry
        self._retry_attempt += 1
        attempt = self._retry_attempt
        error = msg.error_message or "unknown error"
        if attempt > rs.max_retries:
            await self._emit_session_event(AutoRetryEndEvent(False, attempt - 1, error))
            self._retry_attempt = 0
            return False
        delay = retry_delay_ms(msg, attempt, rs)
        if delay is None:
            final = (
                f"{error} (the server asked to wait {msg.retry_after}s, more than retry.max_delay_ms="
                f"{rs.max_delay_ms}; raise it in settings to wait that long)"
            )
            if attempt > 1:
                await self._emit_session_event(AutoRetryEndEvent(False, attempt - 1, final))
            self._retry_attempt = 0
            return False
        await self._emit_session_event(AutoRetryStartEvent(attempt, rs.max_retries, delay, error))
        abort = self._retry_abort
        if abort is not None and not abort.is_set():
            if delay > 0:
                try:
                    await asyncio.wait_for(abort.wait(), delay / 1000)
                except TimeoutError:
                    pass
            else:
                await asyncio.sleep(0)
        if abort is not None and abort.is_set():
            await self._emit_session_event(AutoRetryEndEvent(False, attempt, "Retry cancelled"))
            self._retry_attempt = 0
            return False
        msgs = self.agent.state.messages
        if msgs and msgs[-1] is msg:
            msgs.pop()
        await self.agent.continue_()
        return True

    async def _check_threshold_compaction(self) -> None:
        cs = self.settings.compaction
        if not cs.enabled:
            return
        from autocue.session.compaction import get_context_tokens, should_compact

        tokens = get_context_tokens(self.agent.state.messages)
        if should_compact(tokens, self.model.context_window, cs):
            await self._auto_compact("threshold", will_retry=False)

    async def _auto_compact(self, reason: Literal["threshold", "overflow"], *, will_retry: bool) -> bool:
        await self._emit_session_event(AutoCompactionStartEvent(reason))
        try:
            result = await self._compact(None)
        except Exception as err:
            aborted = isinstance(err, CompactionError) and str(err) == "Compaction cancelled"
            text = str(err) if isinstance(err, CompactionError) else f"{type(err).__name__}: {err}"
            await self._emit_session_event(AutoCompactionEndEvent(None, aborted, False, None if aborted else text))
            return False
        await self._emit_session_event(AutoCompactionEndEvent(result, False, will_retry))
        return True

    # ------------------------------------------------------------------ compaction
    async def compact(self, custom_instructions: str | None = None) -> Any:
        """Summarize older history now; returns the ``CompactionResult``.

        Raises ``CompactionError``: ``Already compacted``, ``Nothing to compact (session too small)``,
        ``Compaction cancelled`` (an extension cancelled), or the summary call's failure.
        """
        self._check_alive()
        if self.agent.is_streaming:
            self.agent.abort("Aborted for compaction")
            await self.agent.wait_for_idle()
        self._begin()
        try:
            return await self._compact(custom_instructions)
        finally:
            self._end()

    async def _compact(self, custom_instructions: str | None) -> Any:
        from autocue.session.compaction import CompactionResult, compact, prepare_compaction

        sm = self.session_manager
        branch = sm.get_branch()
        if branch and branch[-1].type == "compaction":
            raise CompactionError("Already compacted")
        prep = prepare_compaction(branch, self.settings.compaction)
        if prep is None or not (prep.messages_to_summarize or prep.turn_prefix_messages):
            raise CompactionError("Nothing to compact (session too small)")
        self._compaction_abort = controller = AbortController()
        from_ext = False
        result: Any = None
        if self.runner.has("session_before_compact"):
            r = await self.runner.emit_session_before(
                SessionBeforeCompactEvent(prep, branch, custom_instructions, controller.signal)
            )
            if r is not None:
                if result_field(r, "cancel") is True:
                    raise CompactionError("Compaction cancelled")
                supplied = result_field(r, "compaction")
                if not is_missing(supplied) and supplied is not None:
                    o = _compaction_override(supplied)
                    result = CompactionResult(o.summary, o.first_kept_entry_id, o.tokens_before, o.details)
                    from_ext = True
        if result is None:
            result = await compact(
                prep, self.model, self.provider, custom_instructions=custom_instructions, signal=controller.signal
            )
        if controller.signal.aborted:
            raise CompactionError("Compaction cancelled")
        eid = sm.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details, from_ext
        )
        self.agent.replace_messages(sm.build_session_context().messages)
        if self.runner.has("session_compact"):
            await self.runner.emit_async(SessionCompactEvent(sm.get_entry(eid), from_ext))
        return result

    def schedule_compaction(
        self,
        custom_instructions: str | None = None,
        *,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[Any]:
        """Compact once the session is idle (what ``ctx.compact`` calls); returns the task."""

        async def job() -> Any:
            await self.wait_for_idle()
            try:
                result = await self.compact(custom_instructions)
            except Exception as err:
                if on_error is not None:
                    on_error(err)
                    return None
                raise
            if on_complete is not None:
                on_complete(result)
            return result

        task = asyncio.ensure_future(job())
        self._track(task)
        return task

    def schedule_dispose(self) -> asyncio.Task[None]:
        async def job() -> None:
            await self.wait_for_idle()
            await self.dispose()

        task = asyncio.ensure_future(job())
        self._track(task)
        return task

    # ------------------------------------------------------------------ abort
    def abort_retry(self) -> None:
        """Stop waiting for the next auto-retry attempt (the retry ends as aborted)."""
        if self._retry_abort is not None:
            self._retry_abort.set()

    def abort_nowait(self) -> None:
        """Signal abort to the running model call, tools, retry wait and compaction."""
        self.abort_retry()
        if self._compaction_abort is not None:
            self._compaction_abort.abort("Compaction aborted")
        self.agent.abort()

    async def abort(self) -> None:
        """Abort and wait until the session is idle."""
        self.abort_nowait()
        await self.wait_for_idle()

    # ------------------------------------------------------------------ model / thinking / naming
    async def set_model(self, model: Model) -> None:
        """Switch the model (recorded as a ``model_change`` entry; fires ``model_select``)."""
        prev = self.agent.state.model
        self.agent.set_model(model)
        self.session_manager.append_model_change(model.provider, model.id)
        await self.runner.emit_async(ModelSelectEvent(model, prev, "set"))

    def set_thinking_level(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise ValueError(f"unknown thinking level {level!r}; use one of {', '.join(THINKING_LEVELS)}")
        self.agent.set_thinking_level(level)
        self.session_manager.append_thinking_level_change(level)

    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)

    def get_commands(self) -> list[CommandInfo]:
        out = self.runner.commands()
        out += [CommandInfo(p.name, p.description, "prompt", p.file_path) for p in self.resources.prompts]
        if self.settings.enable_skill_commands:
            out += [CommandInfo(f"skill:{s.name}", s.description, "skill", s.file_path) for s in self.resources.skills]
        return out

    # ------------------------------------------------------------------ queries
    def get_context_usage(self) -> ContextUsage:
        from autocue.session.compaction import get_context_tokens

        window = self.model.context_window
        tokens = int(get_context_tokens(self.agent.state.messages))
        return ContextUsage(tokens, window, tokens / window * 100 if window else None)

    def get_last_assistant_text(self) -> str | None:
        for m in reversed(self.agent.state.messages):
            if m.role == "assistant":
                assert isinstance(m, AssistantMessage)
                if m.stop_reason == "aborted" and not m.content:
                    continue
                return m.text
        return None

    # ------------------------------------------------------------------ tree navigation
    async def navigate_tree(self, target_id: str | None, *, summary: str | None = None) -> bool:
        """Move the leaf to ``target_id`` (``None``: before the first entry) and rebuild the context.

        ``session_before_tree`` handlers can cancel (returns False) or supply a ``summary`` of the
        branch being left, stored as a ``branch_summary`` entry.
        """
        self._check_alive()
        sm = self.session_manager
        if target_id is not None and sm.get_entry(target_id) is None:
            from autocue.session.errors import EntryNotFoundError

            raise EntryNotFoundError(target_id, sm.get_session_file() or "this in-memory session")
        old = sm.get_leaf_id()
        from_ext = False
        if self.runner.has("session_before_tree"):
            r = await self.runner.emit_session_before(SessionBeforeTreeEvent(target_id, old, AbortController().signal))
            if r is not None:
                if result_field(r, "cancel") is True:
                    return False
                s = result_field(r, "summary")
                if isinstance(s, str) and s:
                    summary, from_ext = s, True
                elif s is not None and not is_missing(s):
                    text = result_field(s, "summary")
                    if isinstance(text, str) and text:
                        summary, from_ext = text, True
        summary_entry = None
        if summary:
            eid = sm.branch_with_summary(target_id, summary, None, from_ext)
            summary_entry = sm.get_entry(eid)
        elif target_id is None:
            sm.reset_leaf()
        else:
            sm.branch(target_id)
        self.agent.replace_messages(sm.build_session_context().messages)
        await self.runner.emit_async(SessionTreeEvent(sm.get_leaf_id(), old, summary_entry, from_ext))
        return True

    async def new_session(self) -> bool:
        """Start a fresh session tree (``session_before_switch`` can cancel); returns False if cancelled."""
        self._check_alive()
        sm = self.session_manager
        prev = sm.get_session_file()
        if self.runner.has("session_before_switch"):
            r = await self.runner.emit_session_before(SessionBeforeSwitchEvent("new"))
            if r is not None and result_field(r, "cancel") is True:
                return False
        if self.is_streaming:
            await self.abort()
        sm.new_session(parent_session=None)
        self.agent.reset()
        self._next_turn = []
        sm.append_model_change(self.model.provider, self.model.id)
        sm.append_thinking_level_change(self.thinking_level)
        await self.runner.emit_async(SessionSwitchEvent("new", prev))
        return True


def _custom_spec(message: Any) -> CustomMessageSpec:
    if isinstance(message, CustomMessageSpec):
        return message
    ct = result_field(message, "custom_type", "customType")
    content = result_field(message, "content")
    if is_missing(ct) or is_missing(content):
        raise ValueError("a custom message needs custom_type and content")
    display = result_field(message, "display")
    details = result_field(message, "details")
    return CustomMessageSpec(
        str(ct), content, True if is_missing(display) else bool(display), None if is_missing(details) else details
    )


def _compaction_override(v: Any) -> CompactionOverride:
    if isinstance(v, CompactionOverride):
        return v
    summary = result_field(v, "summary")
    first = result_field(v, "first_kept_entry_id", "firstKeptEntryId")
    tokens = result_field(v, "tokens_before", "tokensBefore")
    details = result_field(v, "details")
    if is_missing(summary) or is_missing(first):
        raise CompactionError(
            "session_before_compact returned a compaction without summary/first_kept_entry_id; "
            "return {'compaction': {'summary': ..., 'first_kept_entry_id': ..., 'tokens_before': ...}}"
        )
    return CompactionOverride(
        str(summary), str(first), 0 if is_missing(tokens) else int(tokens), None if is_missing(details) else details
    )


# ---------------------------------------------------------------------------- factory


@dataclass(slots=True)
class CreateAgentSessionResult:
    session: AgentSession
    extensions_result: ExtensionsResult

    def __iter__(self) -> Any:
        return iter((self.session, self.extensions_result))


async def create_agent_session(
    *,
    provider: Provider,
    model: Model | None = None,
    cwd: str | os.PathLike[str] | None = None,
    session_manager: SessionManager | None = None,
    settings: Settings | None = None,
    tools: Sequence[AgentTool] | Mapping[str, AgentTool] | None = None,
    active_tools: Sequence[str] | None = None,
    extensions: Sequence[ExtensionSpec] = (),
    extension_factories: Sequence[Callable[[Any], Any]] = (),
    discover: bool = True,
    agent_dir: str | os.PathLike[str] | None = None,
    ui: ExtensionUIContext | None = None,
    has_ui: bool | None = None,
    system_prompt: str = "",
    thinking_level: str | None = None,
    skills: Sequence[Skill | str | os.PathLike[str]] | None = None,
    flag_values: dict[str, Any] | None = None,
    bind: bool = True,
) -> CreateAgentSessionResult:
    """Load settings (user, project), resources and extensions, build the session and bind it.

    With ``discover=True`` (default) settings, skills, prompt templates and extensions are also
    looked up in ``<cwd>/.autocue/`` and ``$AUTOCUE_DIR`` (``~/.autocue``) and the
    ``autocue.extensions`` entry points; ``discover=False`` uses only what is passed.
    """
    c = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if settings is None:
        settings = Settings.load(c, agent_dir) if discover else Settings()
    resources = load_resources(
        c, agent_dir=agent_dir, skill_paths=settings.skills, prompt_paths=settings.prompts, discover=discover
    )
    specs = list(extensions) + list(settings.extensions)
    ext = load_extensions(
        specs, cwd=c, factories=extension_factories, discover=discover, agent_dir=agent_dir, flag_values=flag_values
    )
    await finish_loading(ext)
    session = AgentSession(
        provider=provider, model=model, session_manager=session_manager,
        settings=_without_extensions(settings), cwd=c, tools=tools, active_tools=active_tools, extensions=ext,
        ui=ui, has_ui=has_ui, system_prompt=system_prompt, thinking_level=thinking_level, resources=resources,
        skills=skills, flag_values=flag_values,
    )
    if bind:
        await session.bind_extensions()
    return CreateAgentSessionResult(session, ext)


def _without_extensions(s: Settings) -> Settings:
    """The session must not load ``settings.extensions`` a second time."""
    if not s.extensions:
        return s
    c = copy.copy(s)
    c.extensions = []
    return c


__all__ = [
    "AgentSession", "CreateAgentSessionResult", "SessionBusyError", "SessionDisposedError", "SessionListener",
    "ToolInfo", "create_agent_session",
]
