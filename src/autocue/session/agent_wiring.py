"""The ``Agent`` inside an ``AgentSession``: built from the session tree, and the calls it makes back.

- ``restore_agent(session_manager, settings, provider, model, thinking_level)``: the agent with the
  context at the tree's leaf (a fresh tree starts with a ``model_change`` and a
  ``thinking_level_change`` entry).
- ``AgentHooks(agent, runner, session_manager)``: the agent's seams into the session. The
  ``tool_call`` / ``tool_result`` hooks run once per call at the agent level
  (``Agent.before_tool_call`` / ``after_tool_call``) and the ``context`` hook through
  ``Agent.transform_context``, each installed only while a handler is subscribed (so a session
  without one never copies history); ``stream_options`` gives each model call its options,
  reused while nothing in them changed.
- ``ProviderRouter``: the provider the agent streams through: a model whose provider an extension
  registered (``ExtensionAPI.register_provider``) goes to that extension's provider, every other
  model to the session's own ``provider``.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable
from typing import Any

from autocue.agent.agent import Agent
from autocue.agent.loop import AfterToolCallContext, AfterToolCallResult, BeforeToolCallResult, ToolCallContext
from autocue.extensions.events import ToolCallEvent, ToolResultEvent
from autocue.extensions.runner import ExtensionRunner
from autocue.llm.abort import AbortSignal
from autocue.llm.stream import AssistantMessageEventStream, Provider, StreamOptions
from autocue.llm.types import Context, Model
from autocue.script.provider import scripted_model
from autocue.session.manager import SessionManager
from autocue.session.messages import convert_message
from autocue.session.settings import Settings


def restore_agent(
    session_manager: SessionManager, settings: Settings, provider: Provider, model: Model | None,
    thinking_level: str | None,
) -> Agent:
    """The agent streaming through ``provider``, with the context of the session tree when it has
    entries (else a fresh tree starts with the model and thinking level). Its hooks are
    ``AgentHooks.install``'s."""
    sm = session_manager
    restored = bool(sm.get_entries())
    ctx = sm.build_session_context() if restored else None
    level = thinking_level or (ctx.thinking_level if ctx is not None else None)
    level = level or settings.default_thinking_level or "off"
    agent = Agent(
        provider=provider,
        model=model if model is not None else scripted_model(),
        messages=ctx.messages if ctx is not None else (),
        thinking_level=level,
        convert_message=convert_message,
        tool_execution=settings.tool_execution,  # type: ignore[arg-type]
        steering_mode=settings.steering_mode,  # type: ignore[arg-type]
        follow_up_mode=settings.follow_up_mode,  # type: ignore[arg-type]
        session_id=sm.get_session_id(),
    )
    if not restored:
        sm.append_model_change(agent.state.model.provider, agent.state.model.id)
        sm.append_thinking_level_change(level)
    return agent


class AgentHooks:
    """The hooks of one session's agent (the session's dispose unhooks them: no cycle is left)."""

    __slots__ = ("_agent", "_last_options", "_runner", "_sm")

    def __init__(self, agent: Agent, runner: ExtensionRunner, session_manager: SessionManager) -> None:
        self._agent = agent
        self._runner = runner
        self._sm = session_manager
        self._last_options: StreamOptions | None = None

    def install(self) -> None:
        """Hook the agent: its stream options, and the extension events that have handlers (the
        others unhooked)."""
        r, a = self._runner, self._agent
        a.stream_options = self.stream_options
        a.before_tool_call = self.before_tool_call if r.has("tool_call") else None
        a.after_tool_call = self.after_tool_call if r.has("tool_result") else None
        a.transform_context = self.transform_context if r.has("context") else None

    def before_tool_call(
        self, c: ToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | Awaitable[BeforeToolCallResult | None] | None:
        tc = c.tool_call
        return self._runner.emit_tool_call(ToolCallEvent(tc.id, tc.name, c.args))

    def after_tool_call(
        self, c: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | Awaitable[AfterToolCallResult | None] | None:
        tc, r = c.tool_call, c.result
        return self._runner.emit_tool_result(
            ToolResultEvent(tc.id, tc.name, c.args, list(r.content), r.details, c.is_error)
        )

    async def transform_context(self, messages: list[Any], signal: AbortSignal) -> list[Any]:
        return await self._runner.emit_context(copy.deepcopy(messages))

    def stream_options(self, signal: AbortSignal) -> StreamOptions:
        """The options of the next model call; the last ones are reused while nothing in them changed."""
        st = self._agent.state
        runner = self._runner
        hooked = "before_provider_request" in runner.by_event
        reasoning = st.thinking_level if st.thinking_level != "off" else None
        sid = self._sm.get_session_id()
        o = self._last_options
        if (
            o is not None and o.signal is signal and o.reasoning == reasoning and o.session_id == sid
            and (o.on_payload is not None) == hooked
        ):
            return o
        self._last_options = o = StreamOptions(
            signal=signal,
            reasoning=reasoning,
            session_id=sid,
            on_payload=runner.emit_before_provider_request if hooked else None,
        )
        return o


class ProviderRouter:
    __slots__ = ("_ext", "_runner", "base")

    def __init__(self, base: Provider, runner: ExtensionRunner) -> None:
        self.base = base
        self._runner = runner
        self._ext: dict[str, Any] = {}

    def refresh(self) -> None:
        """Re-read the extensions' providers (after a registration)."""
        self._ext = self._runner.providers()

    def models(self) -> list[Model]:
        """The models of every extension provider."""
        return [m for p in self._ext.values() for m in p.models]

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        if self._ext:
            p = self._ext.get(model.provider)
            if p is not None:
                return p.provider.stream(model, context, options)  # type: ignore[no-any-return]
        return self.base.stream(model, context, options)


__all__ = ["AgentHooks", "ProviderRouter", "restore_agent"]
