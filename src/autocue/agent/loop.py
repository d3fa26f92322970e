"""``agent_loop``: turns of model call → tool calls → results, with pi 0.58 semantics.

Per turn: pending steering messages are added, the context is transformed and converted
for the model, the provider streams a reply (``message_start`` / ``message_update`` /
``message_end``), and the reply's tool calls run:

* **prepare**, in the model's order: ``tool_execution_start``, lookup, argument validation,
  the ``before_tool_call`` seam (which can block with a reason);
* **execute** concurrently (a tool with ``execution_mode="exclusive"`` runs alone);
* **finalize** in the model's order: the ``after_tool_call`` seam (which can replace
  content, details, error flag), ``tool_execution_end``, then the tool-result message.

The loop ends when a reply has no tool calls and no steering or follow-up message is queued,
or when a reply fails (``error``/``aborted``). Events go to ``emit``, which may return an
awaitable; the loop awaits it before going on, so listeners see events strictly in order.
Events nobody reads (``config.observes``) are not built: ``agent_start``/``agent_end``,
``turn_start``/``turn_end`` (and their metrics) and ``message_update`` (a reply whose stream
offers ``final()`` is then taken whole, not streamed; any other is streamed without them).

Converting the history for the model is incremental (only new messages are converted), so
a step costs the same at message 10 as at message 10,000.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from autocue.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentMessage,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolTiming,
    TurnEndEvent,
    TurnMetrics,
    TurnStartEvent,
)
from autocue.agent.tool import AgentTool, ToolArgumentsError, ToolResult, to_tool_result
from autocue.llm.abort import AbortSignal
from autocue.llm.events import DoneEvent, ErrorEvent, StartEvent
from autocue.llm.stream import Provider, StreamOptions, error_message
from autocue.llm.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    Tool,
    ToolCall,
    ToolResultMessage,
    now_ms,
)

Emit: TypeAlias = Callable[[AgentEvent], "Awaitable[None] | None"]
ToolExecution: TypeAlias = Literal["parallel", "sequential"]


@dataclass(slots=True)
class AgentContext:
    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool] = field(default_factory=list)


@dataclass(slots=True)
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None


_UNSET: Any = object()


@dataclass(slots=True)
class AfterToolCallResult:
    """Field-by-field replacement of a tool's result; unset fields keep their value."""

    content: Any = _UNSET
    details: Any = _UNSET
    is_error: Any = _UNSET


@dataclass(slots=True)
class ToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: dict[str, Any]
    context: AgentContext


@dataclass(slots=True)
class AfterToolCallContext(ToolCallContext):
    """The ``before_tool_call`` context plus the tool's result."""

    result: ToolResult
    is_error: bool


BeforeToolCall: TypeAlias = Callable[
    [ToolCallContext, AbortSignal], "Awaitable[BeforeToolCallResult | None] | BeforeToolCallResult | None"
]
AfterToolCall: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal], "Awaitable[AfterToolCallResult | None] | AfterToolCallResult | None"
]
ConvertMessage: TypeAlias = Callable[[AgentMessage], "Message | None"]
TransformContext: TypeAlias = Callable[
    [list[AgentMessage], AbortSignal], "Awaitable[list[AgentMessage]] | list[AgentMessage]"
]


def default_convert_message(m: AgentMessage) -> Message | None:
    """Keep user, assistant and tool-result messages; drop failed replies and custom roles."""
    role = m.role
    if role == "assistant":
        assert isinstance(m, AssistantMessage)
        return None if m.stop_reason == "error" or m.stop_reason == "aborted" else m
    if role == "user" or role == "toolResult":
        return m  # type: ignore[return-value]
    return None


@dataclass(slots=True)
class AgentLoopConfig:
    model: Model
    provider: Provider
    convert_message: ConvertMessage = default_convert_message
    """Turns one agent message into an LLM message (or drops it); applied incrementally."""
    convert_to_llm: Callable[[list[AgentMessage]], list[Message]] | None = None
    """Whole-history conversion; when set it replaces the incremental ``convert_message``."""
    transform_context: TransformContext | None = None
    get_steering_messages: Callable[[], Sequence[AgentMessage]] | None = None
    get_follow_up_messages: Callable[[], Sequence[AgentMessage]] | None = None
    tool_execution: ToolExecution = "parallel"
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    stream_options: Callable[[AbortSignal], StreamOptions] | None = None
    observes: Callable[[str], bool] | None = None
    """Whether anyone reads events of a type (None: every event is read); asked live, once per turn or reply."""


class WholeReply(Protocol):
    """A synchronous event source that can also hand over its reply whole (``ScriptedProvider``'s):
    ``final()`` is the ``done`` or ``error`` event alone, without the stream before it."""

    def final(self) -> DoneEvent | ErrorEvent: ...


def _every(event_type: str) -> bool:
    return True


class _Converter:
    """Incremental history conversion: converts only messages appended since the last call."""

    __slots__ = ("_ctx", "_fn", "_out", "_seen", "_specs", "_specs_of", "_src", "latency_ms")

    def __init__(self, fn: ConvertMessage) -> None:
        self._fn = fn
        self._src: list[AgentMessage] | None = None
        self._seen = 0
        self._out: list[Message] = []
        self._specs: list[Tool] = []
        self._specs_of: tuple[AgentTool, ...] | None = None
        self._ctx: Context | None = None
        self.latency_ms = 0.0
        """Of the last model call (set by ``_stream_reply``)."""

    def context(self, system_prompt: str, messages: list[Message], tools: list[AgentTool]) -> Context:
        """The LLM context (tool specs rebuilt only when the tool list changed); the previous one is
        reused when it would hold these very objects."""
        key = tuple(tools)
        if key != self._specs_of:
            self._specs_of = key
            self._specs = [t.spec for t in tools]
        c, specs = self._ctx, self._specs
        if c is None or c.messages is not messages or c.system_prompt is not system_prompt or c.tools is not specs:
            c = self._ctx = Context(system_prompt, messages, specs)
        return c

    def __call__(self, messages: list[AgentMessage]) -> list[Message]:
        if messages is not self._src or len(messages) < self._seen:
            self._src = messages
            self._seen = 0
            self._out = []
        fn, out = self._fn, self._out
        for i in range(self._seen, len(messages)):
            m = fn(messages[i])
            if m is not None:
                out.append(m)
        self._seen = len(messages)
        return out


async def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal,
) -> list[AgentMessage]:
    """Run the loop for new prompt messages; returns the messages the run added."""
    e = emit
    new: list[AgentMessage] = []
    wants = config.observes or _every
    if wants("agent_start") and (_r := e(AgentStartEvent())) is not None:
        await _r
    if wants("turn_start") and (_r := e(TurnStartEvent(0, now_ms()))) is not None:
        await _r
    for m in prompts:
        await _add(m, context, new, e)
    await _run(context, config, e, signal, new, first_turn=True)
    return new


async def agent_loop_continue(
    context: AgentContext, config: AgentLoopConfig, emit: Emit, signal: AbortSignal
) -> list[AgentMessage]:
    """Continue from the current context (its last message must not be an assistant reply)."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if context.messages[-1].role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")
    return await agent_loop((), context, config, emit, signal)


async def _run(
    context: AgentContext,
    config: AgentLoopConfig,
    e: Emit,
    signal: AbortSignal,
    new: list[AgentMessage],
    *,
    first_turn: bool,
) -> None:
    converter = _Converter(config.convert_message)
    wants = config.observes or _every
    turn_index = 0
    pending: Sequence[AgentMessage] = config.get_steering_messages() if config.get_steering_messages else ()
    while True:
        has_tool_calls = True
        while has_tool_calls or pending:
            if first_turn:
                first_turn = False
            else:
                turn_index += 1
                if wants("turn_start") and (_r := e(TurnStartEvent(turn_index, int(time.time() * 1000)))) is not None:
                    await _r  # (now_ms(), inlined)
            for m in pending:
                await _add(m, context, new, e)
            pending = ()
            msg = await _stream_reply(context, config, converter, e, signal, wants)
            # measured only for a turn_end somebody reads
            metrics = TurnMetrics(converter.latency_ms, 0.0, [], 0, msg.usage) if wants("turn_end") else None
            new.append(msg)
            if msg.stop_reason == "error" or msg.stop_reason == "aborted":
                if metrics is not None:
                    metrics.message_count = len(context.messages)
                    if (_r := e(TurnEndEvent(turn_index, msg, [], metrics))) is not None:
                        await _r
                if wants("agent_end") and (_r := e(AgentEndEvent(new))) is not None:
                    await _r
                return
            calls: list[Any] = [b for b in msg.content if b.type == "toolCall"]
            has_tool_calls = bool(calls)
            results: list[ToolResultMessage] = []
            if calls:
                t0 = time.perf_counter()
                if len(calls) == 1 and config.tool_execution == "parallel":  # the common case, inline
                    call = calls[0]
                    if (_r := e(ToolExecutionStartEvent(call.id, call.name, call.arguments))) is not None:
                        await _r
                    p = _lookup(context, call)
                    if p.tool is not None and config.before_tool_call is not None:
                        await _gate(context, config, msg, p, signal)
                    if p.result is None:
                        await _execute(p, e, signal)
                    await _finalize(context, config, e, signal, msg, p, results, new, metrics)
                else:
                    steering = await _execute_calls(context, config, e, signal, msg, calls, results, new, metrics)
                    if steering:
                        pending = steering
                if metrics is not None:
                    metrics.tool_time_ms = (time.perf_counter() - t0) * 1000
            if metrics is not None:
                metrics.message_count = len(context.messages)
                if (_r := e(TurnEndEvent(turn_index, msg, results, metrics))) is not None:
                    await _r
            if not pending and config.get_steering_messages is not None:
                pending = config.get_steering_messages()
        follow = config.get_follow_up_messages() if config.get_follow_up_messages else []
        if follow:
            pending = follow
            continue
        break
    if wants("agent_end") and (_r := e(AgentEndEvent(new))) is not None:
        await _r


async def _add(m: AgentMessage, context: AgentContext, new: list[AgentMessage], e: Emit) -> None:
    """Append ``m`` to the context and to the run's messages, with its start and end events."""
    context.messages.append(m)
    new.append(m)
    if (_r := e(MessageStartEvent(m))) is not None:
        await _r
    if (_r := e(MessageEndEvent(m))) is not None:
        await _r


async def _stream_reply(
    context: AgentContext,
    config: AgentLoopConfig,
    converter: _Converter,
    e: Emit,
    signal: AbortSignal,
    wants: Callable[[str], bool],
) -> AssistantMessage:
    messages = context.messages
    if config.transform_context is not None:
        out = config.transform_context(messages, signal)
        messages = out if isinstance(out, list) else await out
    convert = config.convert_to_llm or converter
    llm_messages = convert(messages)
    llm_context = converter.context(context.system_prompt, llm_messages, context.tools)
    model = config.model
    opts = config.stream_options(signal) if config.stream_options is not None else StreamOptions(signal=signal)
    t0 = time.perf_counter()
    final: AssistantMessage | None = None
    started = False
    if signal.aborted:
        final = error_message(model, signal.reason or "Request was aborted", aborted=True)
    else:
        stream = config.provider.stream(model, llm_context, opts)
        sync_source = stream.sync_source
        updates = wants("message_update")  # else the deltas are not built: the reply is taken whole if it can be
        final_of = None if updates else getattr(sync_source, "final", None)  # a WholeReply
        if final_of is not None:
            last = final_of()
            final = last.message if last.type == "done" else last.error
        elif sync_source is not None:  # scripted replies: no awaiting between events
            for ev in sync_source:  # dispatch on the event's tag: cheaper than isinstance checks
                t = ev.type
                if t == "start":
                    started = True
                    if (_r := e(MessageStartEvent(ev.partial))) is not None:  # type: ignore[union-attr]
                        await _r
                elif t == "done":
                    final = ev.message  # type: ignore[union-attr]
                elif t == "error":
                    final = ev.error  # type: ignore[union-attr]
                elif updates and (_r := e(MessageUpdateEvent(ev.partial, ev))) is not None:  # type: ignore[union-attr]
                    await _r
        else:
            async for ev in stream.source:
                if isinstance(ev, StartEvent):
                    started = True
                    if (_r := e(MessageStartEvent(ev.partial))) is not None:
                        await _r
                elif isinstance(ev, DoneEvent):
                    final = ev.message
                elif isinstance(ev, ErrorEvent):
                    final = ev.error
                elif updates and (_r := e(MessageUpdateEvent(ev.partial, ev))) is not None:
                    await _r
        stream.message = final
        if final is None:
            final = error_message(model, "provider stream ended without a final event")
    converter.latency_ms = (time.perf_counter() - t0) * 1000
    context.messages.append(final)
    if not started and (_r := e(MessageStartEvent(final))) is not None:
        await _r
    if (_r := e(MessageEndEvent(final))) is not None:
        await _r
    return final


# ---------------------------------------------------------------------------- tool calls


@dataclass(slots=True)
class _Prepared:
    call: ToolCall
    tool: AgentTool | None = None
    args: Any = None
    result: ToolResult | None = None
    """Set for calls that end before execution (unknown tool, invalid arguments, blocked)."""
    is_error: bool = False
    blocked: bool = False
    error: BaseException | None = None
    ms: float = 0.0
    updates: list[asyncio.Future[Any]] | None = None
    emit: Emit | None = None

    def on_update(self, partial: ToolResult) -> None:
        """The ``on_update`` a running tool gets: a ``tool_execution_update`` event per partial result."""
        assert self.emit is not None
        call = self.call
        r = self.emit(ToolExecutionUpdateEvent(call.id, call.name, self.args, partial))
        if r is not None:
            if self.updates is None:
                self.updates = []
            self.updates.append(asyncio.ensure_future(r))


async def _prepare(
    context: AgentContext, config: AgentLoopConfig, e: Emit, msg: AssistantMessage, call: ToolCall, signal: AbortSignal
) -> _Prepared:
    """``tool_execution_start``, then the lookup and the ``before_tool_call`` seam."""
    if (_r := e(ToolExecutionStartEvent(call.id, call.name, call.arguments))) is not None:
        await _r
    p = _lookup(context, call)
    if p.tool is not None and config.before_tool_call is not None:
        await _gate(context, config, msg, p, signal)
    return p


def _lookup(context: AgentContext, call: ToolCall) -> _Prepared:
    """Find the tool and validate the arguments (no awaiting: the common path stays synchronous)."""
    p = _Prepared(call)
    tool = None
    for t in context.tools:
        if t.name == call.name:
            tool = t
            break
    if tool is None:
        p.result, p.is_error = ToolResult.text(f"Tool {call.name} not found", {}), True  # pi's exact text
        return p
    try:
        args = tool.validate(call.arguments)
    except ToolArgumentsError as err:
        received = json.dumps(call.arguments, ensure_ascii=False, default=str)
        text = f'Validation failed for tool "{call.name}":\n{err}\n\nReceived arguments:\n{received}'
        p.result, p.is_error = ToolResult.text(text, {}), True
        return p
    p.tool, p.args = tool, args
    return p


async def _gate(
    context: AgentContext, config: AgentLoopConfig, msg: AssistantMessage, p: _Prepared, signal: AbortSignal
) -> None:
    """The ``before_tool_call`` seam: a block (or a raise) ends the call with an error result."""
    assert config.before_tool_call is not None
    try:
        r = config.before_tool_call(ToolCallContext(msg, p.call, p.args, context), signal)
        if r is not None and not isinstance(r, BeforeToolCallResult):
            r = await r
    except Exception as err:  # a failing gate blocks (fail-safe), with the error as reason
        r = BeforeToolCallResult(True, f"{type(err).__name__}: {err}")
    if r is not None and r.block:
        p.result = ToolResult.text(r.reason or "Tool execution was blocked", {})
        p.is_error = p.blocked = True


async def _execute(p: _Prepared, e: Emit, signal: AbortSignal) -> None:
    tool = p.tool
    assert tool is not None
    call = p.call
    p.emit = e
    t0 = time.perf_counter()
    try:
        out = tool.start(call.id, p.args, signal, p.on_update)
        if type(out) is not ToolResult:
            if hasattr(out, "__await__"):
                out = await out
            out = to_tool_result(out)  # a ToolResult passes through unchanged
        p.result = out
    except asyncio.CancelledError:
        raise
    except Exception as err:
        p.result = ToolResult.text(str(err) or type(err).__name__, {})
        p.is_error = True
        p.error = err
    p.ms = (time.perf_counter() - t0) * 1000


async def _finalize(
    context: AgentContext,
    config: AgentLoopConfig,
    e: Emit,
    signal: AbortSignal,
    msg: AssistantMessage,
    p: _Prepared,
    results: list[ToolResultMessage],
    new: list[AgentMessage],
    metrics: TurnMetrics | None,
) -> None:
    if p.updates:
        await asyncio.gather(*p.updates)
    result = p.result
    assert result is not None
    is_error = p.is_error
    if p.tool is not None and not p.blocked and config.after_tool_call is not None:
        r = config.after_tool_call(AfterToolCallContext(msg, p.call, p.args, context, result, is_error), signal)
        if r is not None and not isinstance(r, AfterToolCallResult):
            r = await r
        if r is not None:
            content = result.content if r.content is _UNSET else r.content
            details = result.details if r.details is _UNSET else r.details
            result = ToolResult(content, details)
            if r.is_error is not _UNSET:
                is_error = bool(r.is_error)
    call = p.call
    if metrics is not None and p.tool is not None and not p.blocked:
        metrics.tool_timings.append(ToolTiming(call.id, call.name, p.ms, is_error))
    if (_r := e(ToolExecutionEndEvent(call.id, call.name, result, is_error, p.blocked, p.error))) is not None:
        await _r
    trm = ToolResultMessage(call.id, call.name, result.content, result.details, is_error, int(time.time() * 1000))
    context.messages.append(trm)
    new.append(trm)
    results.append(trm)
    if (_r := e(MessageStartEvent(trm))) is not None:
        await _r
    if (_r := e(MessageEndEvent(trm))) is not None:
        await _r


async def _execute_calls(
    context: AgentContext,
    config: AgentLoopConfig,
    e: Emit,
    signal: AbortSignal,
    msg: AssistantMessage,
    calls: list[ToolCall],
    results: list[ToolResultMessage],
    new: list[AgentMessage],
    metrics: TurnMetrics | None,
) -> Sequence[AgentMessage]:
    """Run one reply's tool calls; returns steering messages that arrived (sequential mode)."""
    if config.tool_execution == "sequential":
        for i, call in enumerate(calls):
            p = await _prepare(context, config, e, msg, call, signal)
            if p.result is None:
                await _execute(p, e, signal)
            await _finalize(context, config, e, signal, msg, p, results, new, metrics)
            steering = config.get_steering_messages() if config.get_steering_messages else ()
            if steering:
                for skipped in calls[i + 1 :]:
                    if (_r := e(ToolExecutionStartEvent(skipped.id, skipped.name, skipped.arguments))) is not None:
                        await _r
                    skip = ToolResult.text("Skipped due to queued user message.", {})
                    sp = _Prepared(skipped, result=skip, is_error=True)
                    await _finalize(context, config, e, signal, msg, sp, results, new, metrics)
                return steering
        return ()

    prepared = [await _prepare(context, config, e, msg, call, signal) for call in calls]

    # Execute in segments: runs of parallel tools run together; an exclusive tool runs alone.
    segments: list[list[_Prepared]] = []
    for exclusive, group in itertools.groupby(prepared, _exclusive):
        run = list(group)
        segments.extend([[p] for p in run] if exclusive else [run])
    for segment in segments:
        runnable = [p for p in segment if p.result is None]
        if len(runnable) == 1:
            await _execute(runnable[0], e, signal)
            for p in segment:
                await _finalize(context, config, e, signal, msg, p, results, new, metrics)
        else:
            tasks = {id(p): asyncio.ensure_future(_execute(p, e, signal)) for p in runnable}
            try:
                for p in segment:
                    task = tasks.get(id(p))
                    if task is not None:
                        await task
                    await _finalize(context, config, e, signal, msg, p, results, new, metrics)
            finally:
                for task in tasks.values():
                    if not task.done():
                        task.cancel()
    return ()


def _exclusive(p: _Prepared) -> bool:
    return p.result is None and p.tool is not None and p.tool.execution_mode == "exclusive"
