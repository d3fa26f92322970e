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

The work is done by collaborators: ``prompts`` (``prompt_queue.py``), ``compactor``
(``SessionCompactor``, ``compaction.py``), ``retry`` (``AutoRetry``, ``retry.py``),
``tool_registry`` (``tool_registry.py``), ``events`` (``event_dispatch.py``), ``subagents``
(``subagents.py``: the ``task`` tool and its children), ``ttsr`` (``ttsr.py``: streamed rules),
``hooks``, ``router`` and the agent itself (``agent_wiring.py``: the agent's tool and context
hooks, its stream options, the extension providers) and ``tree_navigation.py``. What follows a
run (TTSR retry, auto-retry, compaction) is ``AgentSession._run``. Each collaborator is built
with the parts it uses (agent, settings, events, session manager, extension runner) and the
``guard`` (``ports.RunGuard``: alive, the runs in progress, ``_run`` and ``abort`` held weakly),
never the session itself.
``create_agent_session(...)`` (``factory.py``) is the async factory: it loads settings,
resources and extensions (with discovery), builds the session and binds it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from autocue.agent.tool import AgentTool
from autocue.extensions.context import (
    ContextUsage,
    ExtensionCommandContext,
    ExtensionContext,
    ReadonlySessionManager,
)
from autocue.extensions.events import (
    BeforeAgentStartEvent,
    CustomMessageSpec,
    InputEvent,
    ModelSelectEvent,
    ResourcesDiscoverEvent,
    SessionShutdownEvent,
    SessionStartEvent,
)
from autocue.extensions.extension import CommandInfo
from autocue.extensions.host import ToolInfo
from autocue.extensions.loader import ExtensionSpec, ExtensionsResult, finish_loading, load_extensions
from autocue.extensions.runner import ExtensionRunner
from autocue.extensions.ui import NO_UI, ExtensionUIContext
from autocue.llm.stream import THINKING_LEVELS, Provider
from autocue.llm.types import AssistantMessage, ImageContent, Model, UserContent
from autocue.session import tree_navigation
from autocue.session.agent_wiring import AgentHooks, ProviderRouter, restore_agent
from autocue.session.compaction import SessionCompactor
from autocue.session.context_tokens import get_context_tokens
from autocue.session.errors import SessionBusyError, SessionDisposedError
from autocue.session.event_dispatch import EventDispatch, SessionListener
from autocue.session.manager import SessionManager
from autocue.session.messages import CustomMessage
from autocue.session.ports import RunGuard
from autocue.session.prompt_queue import PromptQueue, user_message
from autocue.session.resources import (
    PromptTemplate,
    Resources,
    Skill,
    format_skills_for_prompt,
    load_resources,
    with_skills_and_prompts,
)
from autocue.session.retry import AutoRetry, is_retryable_error
from autocue.session.settings import Settings
from autocue.session.subagents import Subagents
from autocue.session.tool_registry import ToolRegistry
from autocue.session.ttsr import TtsrManager, TtsrRule, as_rules, rules_from_settings

StreamingBehavior = Literal["steer", "follow_up"]


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
        subagents: bool | None = None,
        ttsr_rules: Sequence[TtsrRule | dict[str, Any]] = (),
    ) -> None:
        self.cwd = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
        self.provider = provider
        self.settings = settings if settings is not None else Settings()
        self.session_manager = session_manager if session_manager is not None else SessionManager.in_memory(self.cwd)
        self.readonly_session_manager = ReadonlySessionManager(self.session_manager)
        self.ui: ExtensionUIContext = ui if ui is not None else NO_UI
        self.has_ui = has_ui if has_ui is not None else ui is not None
        self._base_system_prompt = system_prompt

        self.resources = with_skills_and_prompts(
            resources if resources is not None else Resources(), self.cwd, skills, prompt_templates
        )

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
        self.events = EventDispatch(self.runner, self.session_manager)
        self.runner.session = self
        self.runner.ctx = ExtensionContext(self)
        self.runner.command_ctx = ExtensionCommandContext(self)
        self.runner.on_error = self.events.on_extension_error
        self.runner.on_change = self._refresh

        self.tool_registry = ToolRegistry.create(self.runner, self.cwd, tools, active_tools)
        self.router = ProviderRouter(provider, self.runner)
        """What the agent streams through: extension providers' models to them, the rest to ``provider``."""
        self.agent = restore_agent(self.session_manager, self.settings, self.router, model, thinking_level)
        self.hooks = AgentHooks(self.agent, self.runner, self.session_manager)
        self.guard = RunGuard(self.agent, run=self._run, abort=self.abort)
        """What the collaborators share of this session's runs (see ``ports.py``)."""
        agent, settings, sm, runner, events = self.agent, self.settings, self.session_manager, self.runner, self.events
        self.subagents: Subagents | None = None
        if subagents or (subagents is None and tools is None):
            self.subagents = Subagents(
                agent=agent, settings=settings, session_manager=sm, router=self.router,
                tool_registry=self.tool_registry, cwd=self.cwd, new_session=AgentSession,
                agent_dir=os.fspath(agent_dir) if agent_dir else None, discover=discover_extensions)
            self.tool_registry.add_builtin(self.subagents.tool(), active=tools is not None)
        self.ttsr = TtsrManager([
            *rules_from_settings(self.settings.extra.get("ttsrRules"), ", ".join(self.settings.sources) or "settings"),
            *as_rules(ttsr_rules, "ttsr_rules"),
        ], agent=agent, runner=runner, session_manager=sm, events=events)
        # first: it cuts the stream (it reads message_update, and only while there are rules)
        self._unsubscribe_ttsr = self.agent.subscribe(self.ttsr.on_agent_event, self.ttsr.observes)
        self.events.drop = self.ttsr.is_cut
        self._unsubscribe_agent = self.agent.subscribe(self.events.on_agent_event, self.events.observes)
        self.prompts = PromptQueue(agent=agent, settings=settings, resources=self.resources, runner=runner,
                                   events=events, guard=self.guard, session=self)
        self.compactor = SessionCompactor(agent=agent, provider=provider, settings=settings, session_manager=sm,
                                          runner=runner, events=events, guard=self.guard)
        self.retry = AutoRetry(agent=agent, settings=settings, events=events)
        self._tree = tree_navigation.TreeParts(agent, sm, runner, self.guard, self.prompts)
        self._bound = False
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
        return self.guard.busy

    @property
    def is_disposed(self) -> bool:
        return self.guard.disposed

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_id(self) -> str:
        return self.session_manager.get_session_id()

    # ------------------------------------------------------------------ tools
    def get_all_tools(self) -> list[ToolInfo]:
        """Built-in (or ``tools=``) and extension tools; an extension tool replaces a built-in of its name."""
        return self.tool_registry.infos()

    def get_active_tool_names(self) -> list[str]:
        return self.tool_registry.active_names()

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Make exactly ``names`` available to the model (also rebuilds the system prompt)."""
        self.tool_registry.set_active(names)
        self._refresh()

    def _refresh(self) -> None:
        """Recompute tools, system prompt and hook seams after a registration or tool change."""
        names, tools = self.tool_registry.active_tools()
        self.ttsr.refresh()
        self.router.refresh()
        self.agent.set_tools(tools)
        self.agent.set_system_prompt(self._effective_system_prompt(names))
        self.hooks.install()

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

    # ------------------------------------------------------------------ events
    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Listen to agent events and session events (``auto_*``, ``extension_error``); returns an unsubscriber."""
        return self.events.subscribe(listener)

    # ------------------------------------------------------------------ binding / lifecycle
    async def bind_extensions(self, ui: ExtensionUIContext | None = None, has_ui: bool | None = None) -> None:
        """Set the UI, finish async extension loading, fire ``session_start`` then ``resources_discover``.

        ``prompt`` binds on first use; call this yourself to fire ``session_start`` earlier or to
        give a UI. ``session_start`` fires once per session.
        """
        self.guard.check_alive()
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
                self.resources.merge(
                    load_resources(self.cwd, skill_paths=skill_paths, prompt_paths=prompt_paths, discover=False))
                self._refresh()

    async def dispose(self) -> None:
        """Abort any run, fire ``session_shutdown`` (once), and detach. Idempotent."""
        if self.guard.disposed:
            return
        self.guard.disposed = True
        if self.is_streaming:
            self.abort_nowait()
            await self.agent.wait_for_idle()
        await self.runner.emit_async(SessionShutdownEvent())
        self._unsubscribe_agent()
        self.session_manager.close()
        for t in list(self.events.background):
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
        self._unsubscribe_ttsr()
        self._unsubscribe_agent = self._unsubscribe_ttsr = lambda: None  # nothing left to remove
        self.events.drop = None
        self.events.listeners.clear()
        self.runner.detach()

    async def __aenter__(self) -> AgentSession:
        if not self._bound:
            await self.bind_extensions()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.dispose()

    async def wait_for_idle(self) -> None:
        """Wait until no prompt, retry or compaction of this session runs."""
        await self.guard.wait_for_idle()

    # ------------------------------------------------------------------ prompting
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
        self.guard.check_alive()
        await self.bind_extensions()
        if expand_prompt_templates and text.startswith("/") and await self.prompts.try_command(text):
            return
        img: list[ImageContent] | None = list(images) if images else None
        if self.runner.has("input"):
            res = await self.runner.emit_input(InputEvent(text, img, source))
            if res.action == "handled":
                return
            text = res.text if res.text is not None else text
            img = res.images
        if expand_prompt_templates:
            text = self.prompts.expand(text)
        if self.is_streaming:
            if streaming_behavior == "steer" or streaming_behavior == "follow_up":
                self.prompts.deliver(user_message(text, img), streaming_behavior)
                return
            raise SessionBusyError(
                "Agent is already processing. Pass streaming_behavior='steer' or 'follow_up' to queue the "
                "message, or await session.wait_for_idle() first."
            )
        self.guard.begin()
        try:
            await self.compactor.check_threshold()
            messages: list[Any] = [user_message(text, img), *self.prompts.take_next_turn()]
            if self.runner.has("before_agent_start"):
                extra, sp = await self.runner.emit_before_agent_start(
                    BeforeAgentStartEvent(text, img, self._effective_system_prompt())
                )
                messages += [CustomMessage(m.custom_type, m.content, m.display, m.details) for m in extra]
                self.agent.set_system_prompt(sp if sp is not None else self._effective_system_prompt())
            await self._run(lambda: self.agent.prompt(messages))
        finally:
            self.guard.end()

    async def continue_(self) -> None:
        """Run again from the current context (its last message must not be an assistant reply)."""
        self.guard.check_alive()
        await self.bind_extensions()
        await self._run(self.agent.continue_)

    async def _run(self, start: Callable[[], Awaitable[Any]]) -> None:
        """Run ``start()`` (the agent's ``prompt`` or ``continue_``) and what follows it: a TTSR rule that
        cut the stream asks again, a retryable error is retried, a context overflow compacts once and
        continues, a finished turn past the threshold compacts."""
        self.guard.begin()
        try:
            retry = self.retry
            retry.start()
            overflow_tried = False
            self.ttsr.begin_prompt()
            await start()
            while True:
                if self.ttsr.pending is not None and await self.ttsr.retry():
                    continue
                last = self._last_assistant()
                if last is None:
                    return
                if last.stop_reason != "error":
                    await retry.finish(True)
                    if last.stop_reason != "aborted":
                        await self.compactor.check_threshold()
                    return
                overflow = self.compactor.is_overflow(last)
                if not overflow and self.settings.retry.enabled and is_retryable_error(last):
                    if await retry.retry(last):
                        continue
                    return
                await retry.finish(False, last.error_message)
                if not overflow or not self.settings.compaction.enabled or overflow_tried:
                    return
                overflow_tried = True
                if not await self.compactor.auto("overflow", will_retry=True):
                    return
                msgs = self.agent.state.messages
                while (last := self._last_assistant()) is not None and last.stop_reason in ("error", "aborted"):
                    msgs.pop()
                if not msgs or msgs[-1].role == "assistant":
                    return
                await self.agent.continue_()
        finally:
            self.guard.end()

    def _last_assistant(self) -> AssistantMessage | None:
        msgs = self.agent.state.messages
        if msgs and msgs[-1].role == "assistant":
            return msgs[-1]  # type: ignore[return-value]
        return None

    async def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered after the current tool calls (before the next model call)."""
        self.prompts.queue(text, images, "steer")

    async def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue a message delivered once the agent would otherwise stop."""
        self.prompts.queue(text, images, "follow_up")

    def has_pending_messages(self) -> bool:
        return self.prompts.has_pending()

    async def send_custom_message(
        self,
        message: CustomMessageSpec | CustomMessage | dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "follow_up", "next_turn"] = "steer",
    ) -> None:
        """Add an extension message (role ``custom``, in the model's context); see ``ExtensionAPI.send_message``."""
        await self.prompts.send_custom(message, trigger_turn, deliver_as)

    async def send_user_message(
        self,
        content: str | Sequence[UserContent],
        *,
        deliver_as: Literal["steer", "follow_up", "next_turn"] | None = None,
    ) -> None:
        """A user message from an extension: prompt (no template expansion), or queue while running."""
        await self.prompts.send_user(content, deliver_as)

    # ------------------------------------------------------------------ compaction
    async def compact(self, custom_instructions: str | None = None) -> Any:
        """Summarize older history now; returns the ``CompactionResult``.

        Raises ``CompactionError``: ``Already compacted``, ``Nothing to compact (session too small)``,
        ``Compaction cancelled`` (an extension cancelled), or the summary call's failure.
        """
        return await self.compactor.compact(custom_instructions)

    def schedule_compaction(
        self,
        custom_instructions: str | None = None,
        *,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[Any]:
        """Compact once the session is idle (what ``ctx.compact`` calls); returns the task."""

        async def job() -> Any:
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

        return self._when_idle(job)

    def schedule_dispose(self) -> asyncio.Task[None]:
        return self._when_idle(self.dispose)

    def _when_idle(self, fn: Callable[[], Awaitable[Any]]) -> asyncio.Task[Any]:
        """Run ``fn()`` once the session is idle, as a background task kept alive until it ends."""

        async def job() -> Any:
            await self.wait_for_idle()
            return await fn()

        task = asyncio.ensure_future(job())
        self.events.track(task)
        return task

    # ------------------------------------------------------------------ abort
    def abort_retry(self) -> None:
        """Stop waiting for the next auto-retry attempt (the retry ends as aborted)."""
        self.retry.abort()

    def abort_nowait(self) -> None:
        """Signal abort to the running model call, tools, retry wait and compaction."""
        self.retry.abort()
        self.compactor.abort()
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

    def diagnostics(self) -> list[str]:
        """Files that were skipped, and why: skills and prompts, agent types, TTSR rules."""
        agent_types = self.subagents.types.diagnostics if self.subagents is not None else []
        return [*self.resources.diagnostics, *self.ttsr.diagnostics, *agent_types]

    def get_commands(self) -> list[CommandInfo]:
        out = self.runner.commands()
        out += [CommandInfo(p.name, p.description, "prompt", p.file_path) for p in self.resources.prompts]
        if self.settings.enable_skill_commands:
            out += [CommandInfo(f"skill:{s.name}", s.description, "skill", s.file_path) for s in self.resources.skills]
        return out

    # ------------------------------------------------------------------ queries
    def get_context_usage(self) -> ContextUsage:
        window = self.model.context_window
        tokens = int(get_context_tokens(self.agent.state.messages))
        return ContextUsage(tokens, window, tokens / window * 100 if window else None)

    def get_last_assistant_text(self) -> str | None:
        m = next((m for m in reversed(self.agent.state.messages)
                  if isinstance(m, AssistantMessage) and (m.stop_reason != "aborted" or m.content)), None)
        return m.text if m is not None else None

    # ------------------------------------------------------------------ tree navigation
    async def navigate_tree(self, target_id: str | None, *, summary: str | None = None) -> bool:
        """Move the leaf to ``target_id`` (``None``: before the first entry) and rebuild the context.

        ``session_before_tree`` handlers can cancel (returns False) or supply a ``summary`` of the
        branch being left, stored as a ``branch_summary`` entry.
        """
        return await tree_navigation.navigate_tree(self._tree, target_id, summary)

    async def new_session(self, *, parent_session: str | None = None) -> bool:
        """Start a fresh session tree (``session_before_switch`` can cancel); returns False if cancelled.

        ``parent_session`` (a session file path) goes into the new header's ``parentSession``."""
        return await tree_navigation.new_session(self._tree, parent_session)

    async def fork(self, entry_id: str) -> tree_navigation.ForkResult:
        """A new session file holding the history before the user message ``entry_id`` (its header's
        ``parentSession`` names this file); ``session_before_fork`` can cancel, ``session_fork`` follows.
        Returns the forked message's text and whether it was cancelled."""
        return await tree_navigation.fork(self._tree, entry_id)

    def get_fork_messages(self) -> list[dict[str, str]]:
        """The user messages ``fork`` can start from: ``[{"entryId", "text"}]``."""
        return tree_navigation.fork_messages(self._tree)

    async def switch_session(self, path: str | os.PathLike[str]) -> bool:
        """Resume another session file (``session_before_switch`` with reason ``resume`` can cancel);
        returns False if cancelled."""
        return await tree_navigation.switch_session(self._tree, os.fspath(path))


__all__ = ["AgentSession", "SessionBusyError", "SessionDisposedError", "SessionListener", "ToolInfo"]
