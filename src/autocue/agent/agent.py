"""``Agent``: state (system prompt, model, tools, messages) plus prompt / continue / steer /
follow-up / abort / subscribe around ``agent_loop``.

Listeners registered with ``subscribe`` may be sync or async; they are called in order and an
async listener is awaited before the next one runs, so every listener sees events in order.
A listener may say which event types it reads (``observes``): events no listener reads
(``agent_start``/``agent_end``, ``turn_start``/``turn_end``, ``message_update``) are then not
built at all, and a scripted reply is not streamed as deltas nobody reads. The agent's own
bookkeeping events (``message_start``/``message_end``, ``tool_execution_start``/``tool_execution_end``)
always go out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from autocue.agent.errors import AgentBusyError as AgentBusyError
from autocue.agent.events import AgentEndEvent, AgentEvent, AgentMessage, MessageEndEvent, MessageStartEvent
from autocue.agent.loop import (
    AfterToolCall,
    AgentContext,
    AgentLoopConfig,
    BeforeToolCall,
    ConvertMessage,
    ToolExecution,
    TransformContext,
    agent_loop,
    agent_loop_continue,
    default_convert_message,
)
from autocue.agent.tool import AgentTool
from autocue.llm.abort import AbortController, AbortSignal
from autocue.llm.stream import Provider, StreamOptions, ThinkingLevel, error_message
from autocue.llm.types import AssistantMessage, ImageContent, Model, TextContent, UserContent, UserMessage

Listener = Callable[[AgentEvent], "Awaitable[None] | None"]
Observes = Callable[[str], bool]
"""Whether a listener reads events of a type (given the event's ``type``)."""
QueueMode = Literal["one-at-a-time", "all"]


@dataclass(slots=True)
class AgentState:
    system_prompt: str
    model: Model
    thinking_level: ThinkingLevel = "off"
    tools: list[AgentTool] = field(default_factory=list)
    messages: list[AgentMessage] = field(default_factory=list)
    is_streaming: bool = False
    stream_message: AssistantMessage | None = None
    pending_tool_calls: set[str] = field(default_factory=set)
    error: str | None = None


class Agent:
    """A stateful agent over a provider.

    ``provider`` is any object with ``stream(model, context, options)`` (a real provider or a
    ``ScriptedProvider``). ``get_api_key(provider_name)`` supplies keys per call.
    """

    def __init__(
        self,
        *,
        provider: Provider,
        model: Model,
        system_prompt: str = "",
        tools: Sequence[AgentTool] = (),
        messages: Sequence[AgentMessage] = (),
        thinking_level: ThinkingLevel = "off",
        convert_message: ConvertMessage = default_convert_message,
        transform_context: TransformContext | None = None,
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        tool_execution: ToolExecution = "parallel",
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        get_api_key: Callable[[str], str | None] | None = None,
        session_id: str | None = None,
        stream_options: Callable[[AbortSignal], StreamOptions] | None = None,
    ) -> None:
        self.provider = provider
        self.state = AgentState(system_prompt, model, thinking_level, list(tools), list(messages))
        self.convert_message = convert_message
        self.transform_context = transform_context
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.tool_execution: ToolExecution = tool_execution
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.get_api_key = get_api_key
        self.session_id = session_id
        self.stream_options = stream_options
        """Builds each model call's options (None: the agent's own, from its state and ``get_api_key``)."""
        self._listeners: list[Listener] = []
        self._observes: list[Observes | None] = []
        """Per listener (same order): what it reads, None for every event."""
        self._steering: list[AgentMessage] = []
        self._follow_up: list[AgentMessage] = []
        self._abort: AbortController | None = None
        self._idle: asyncio.Event | None = None
        self._options: StreamOptions | None = None

    # ------------------------------------------------------------------ subscription
    def subscribe(self, fn: Listener, observes: Observes | None = None) -> Callable[[], None]:
        """Register a listener; returns a function that removes it.

        ``observes(event_type)`` says which events it reads (default: the listener's own ``observes``
        attribute if it has one, else every event). It may still be called with other events, which
        some other listener reads; it must ignore those."""
        self._listeners.append(fn)
        self._observes.append(observes if observes is not None else getattr(fn, "observes", None))

        def unsubscribe() -> None:
            if fn in self._listeners:
                i = self._listeners.index(fn)
                del self._listeners[i], self._observes[i]

        return unsubscribe

    def observes(self, event_type: str) -> bool:
        """Whether any listener reads events of ``event_type`` (read live: a listener may start reading mid-run)."""
        for wants in self._observes:  # noqa: SIM110 - asked per turn: any() over a generator costs twice this
            if wants is None or wants(event_type):
                return True
        return False

    def _emit(self, ev: AgentEvent) -> Awaitable[None] | None:
        t = ev.type
        if t != "message_update":  # updates carry the same partial message_start already recorded
            st = self.state
            if t == "message_start":
                if ev.message.role == "assistant":  # type: ignore[union-attr]
                    st.stream_message = ev.message  # type: ignore[union-attr,assignment]
            elif t == "message_end":
                st.stream_message = None
            elif t == "tool_execution_start":
                st.pending_tool_calls.add(ev.tool_call_id)  # type: ignore[union-attr]
            elif t == "tool_execution_end":
                st.pending_tool_calls.discard(ev.tool_call_id)  # type: ignore[union-attr]
        listeners = self._listeners
        for fn in listeners:
            r = fn(ev)
            if r is not None:
                return self._emit_rest(r, ev, listeners[listeners.index(fn) + 1 :])
        return None

    async def _emit_rest(self, first: Awaitable[None], ev: AgentEvent, rest: list[Listener]) -> None:
        await first
        for fn in rest:
            r = fn(ev)
            if r is not None:
                await r

    # ------------------------------------------------------------------ state setters
    def set_system_prompt(self, prompt: str) -> None:
        self.state.system_prompt = prompt

    def set_model(self, model: Model) -> None:
        self.state.model = model

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self.state.thinking_level = level

    def set_tools(self, tools: Sequence[AgentTool]) -> None:
        self.state.tools = list(tools)

    def replace_messages(self, messages: Sequence[AgentMessage]) -> None:
        self.state.messages = list(messages)

    def append_message(self, message: AgentMessage) -> None:
        self.state.messages.append(message)

    def reset(self) -> None:
        self.state.messages = []
        self.state.error = None
        self.clear_all_queues()

    # ------------------------------------------------------------------ queues
    def steer(self, message: AgentMessage | str) -> None:
        """Queue a message delivered after the current tool calls, before the next model call."""
        self._steering.append(_as_message(message))

    def follow_up(self, message: AgentMessage | str) -> None:
        """Queue a message delivered once the agent would otherwise stop."""
        self._follow_up.append(_as_message(message))

    def clear_all_queues(self) -> None:
        self._steering.clear()
        self._follow_up.clear()

    def has_queued_messages(self) -> bool:
        return bool(self._steering or self._follow_up)

    @property
    def queued_message_count(self) -> int:
        """Steering and follow-up messages waiting to be delivered."""
        return len(self._steering) + len(self._follow_up)

    def _take(self, queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
        if mode == "all":
            out = queue[:]
            queue.clear()
            return out
        return [queue.pop(0)]

    def _take_steering(self) -> Sequence[AgentMessage]:
        return self._take(self._steering, self.steering_mode) if self._steering else ()

    def _take_follow_up(self) -> Sequence[AgentMessage]:
        return self._take(self._follow_up, self.follow_up_mode) if self._follow_up else ()

    # ------------------------------------------------------------------ running
    @property
    def is_streaming(self) -> bool:
        return self.state.is_streaming

    def abort(self, reason: str = "Request was aborted") -> None:
        """Abort the run: the provider stops streaming and running tools see the signal."""
        if self._abort is not None:
            self._abort.abort(reason)

    async def wait_for_idle(self) -> None:
        if self._idle is not None and not self._idle.is_set():
            await self._idle.wait()

    async def prompt(
        self, message: str | AgentMessage | Sequence[AgentMessage], images: Sequence[ImageContent] = ()
    ) -> list[AgentMessage]:
        """Send a prompt and run until the agent stops; returns the messages the run added."""
        if self.state.is_streaming:
            raise AgentBusyError(
                "Agent is already processing a prompt. Use steer() or follow_up() to queue messages, "
                "or wait for it to finish."
            )
        if isinstance(message, str):
            content: str | list[UserContent] = message
            if images:
                content = [TextContent(message), *images]
            prompts: list[AgentMessage] = [UserMessage(content)]
        elif isinstance(message, (list, tuple)):
            prompts = list(message)
        else:
            prompts = [message]  # type: ignore[list-item]
        return await self._run(prompts)

    async def continue_(self) -> list[AgentMessage]:
        """Run again from the current messages (the last must be a user or tool-result message)."""
        if self.state.is_streaming:
            raise AgentBusyError("Agent is already processing. Wait for it to finish before continuing.")
        msgs = self.state.messages
        if not msgs:
            raise ValueError("Cannot continue: no messages in context")
        if msgs[-1].role == "assistant":
            raise ValueError("Cannot continue from message role: assistant")
        return await self._run(None)

    resume = continue_

    def _config(self) -> AgentLoopConfig:
        return AgentLoopConfig(
            model=self.state.model,
            provider=self.provider,
            convert_message=self.convert_message,
            transform_context=self.transform_context,
            get_steering_messages=self._take_steering,
            get_follow_up_messages=self._take_follow_up,
            tool_execution=self.tool_execution,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            stream_options=self.stream_options or self._default_stream_options,
            observes=self.observes,
        )

    def _default_stream_options(self, signal: AbortSignal) -> StreamOptions:
        """The options of the next model call; the last ones are reused while nothing in them changed
        (providers treat options as read-only)."""
        st = self.state
        key = self.get_api_key(st.model.provider) if self.get_api_key is not None else None
        reasoning = st.thinking_level if st.thinking_level != "off" else None
        o = self._options
        if (
            o is None or o.signal is not signal or o.api_key != key or o.reasoning != reasoning
            or o.session_id != self.session_id
        ):
            o = StreamOptions(signal=signal, api_key=key, reasoning=reasoning, session_id=self.session_id)
            self._options = o
        return o

    async def _run(self, prompts: list[AgentMessage] | None) -> list[AgentMessage]:
        st = self.state
        st.is_streaming = True
        st.error = None
        self._abort = AbortController()
        self._idle = asyncio.Event()
        signal = self._abort.signal
        ctx = AgentContext(st.system_prompt, st.messages, st.tools)
        try:
            if prompts is None:
                return await agent_loop_continue(ctx, self._config(), self._emit, signal)
            return await agent_loop(prompts, ctx, self._config(), self._emit, signal)
        except Exception as err:
            # The loop itself failed (a listener or seam raised): record it as a failed reply.
            text = f"{type(err).__name__}: {err}"
            msg = error_message(st.model, text, aborted=signal.aborted)
            st.messages.append(msg)
            st.error = text
            try:
                for ev in (MessageStartEvent(msg), MessageEndEvent(msg), AgentEndEvent([msg])):
                    r = self._emit(ev)
                    if r is not None:
                        await r
            except Exception as again:  # the listener that failed may fail again; keep the first error
                st.error = f"{text} (then, while reporting it: {type(again).__name__}: {again})"
            return [msg]
        finally:
            st.is_streaming = False
            st.stream_message = None
            st.pending_tool_calls.clear()
            self._idle.set()


def _as_message(m: AgentMessage | str) -> AgentMessage:
    return UserMessage(m) if isinstance(m, str) else m


__all__ = ["Agent", "AgentBusyError", "AgentState", "Listener", "Observes"]
