"""``ScriptedProvider``: a first-class provider that plays a queue of scripted replies.

It goes through the same seam as every real provider (``Provider.stream``) and streams real
``start`` / ``*_start`` / ``*_delta`` / ``*_end`` / ``done`` events, cut in fixed-size chunks
so every run is identical (a loop that reads no deltas takes the reply whole instead: the
synchronous source's ``final()``). When the queue is empty it fails loudly: the stream ends with an
``error`` whose message says how many replies were consumed and what the last one was, and
the failure is recorded in ``exhausted`` so a harness can fail the test.
"""

from __future__ import annotations

import inspect
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import orjson

from autocue.llm.abort import AbortSignal
from autocue.llm.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from autocue.llm.stream import AssistantMessageEventStream, StreamOptions, error_message
from autocue.llm.types import (
    AssistantContent,
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from autocue.script.model import ScriptedResponse, ScriptedToolCall, Step, describe_step

SCRIPTED_API = "scripted"


def scripted_model(model_id: str = "playbook", *, context_window: int = 128_000, max_tokens: int = 16_384) -> Model:
    """The model a scripted provider answers for (``autocue/playbook`` by default)."""
    return Model(
        id=model_id,
        api=SCRIPTED_API,
        provider="autocue",
        context_window=context_window,
        max_tokens=max_tokens,
        reasoning=True,
        input=["text", "image"],
    )


@dataclass(slots=True)
class Exhaustion:
    """A model call that found the queue empty."""

    consumed: int
    last: str | None
    call_index: int

    def message(self) -> str:
        last = f"\n  Last consumed: {self.last}" if self.last else ""
        return (
            "No more scripted responses: the agent asked the model for another reply, "
            f"but the script was used up.\n  Consumed {self.consumed} response(s).{last}\n"
            "  Add the reply the agent needs to the script, or find out why the agent called the "
            "model again (a tool error, a retry, a blocked call)."
        )


class ScriptedProvider:
    """Plays scripted replies, one per model call.

    ``chunk_size`` is the number of characters per streamed delta. ``id_prefix`` starts the
    deterministic tool-call ids (``call_1``, ``call_2``, ... unless the step names its own).
    ``on_played(step, message)`` is called for every reply handed out, once it has streamed
    (before its final event), with the message as played.
    """

    api = SCRIPTED_API

    def __init__(
        self,
        responses: Iterable[Step] = (),
        *,
        chunk_size: int = 16,
        id_prefix: str = "call_",
        on_played: Callable[[Step, AssistantMessage], None] | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self.queue: deque[Step] = deque(responses)
        self.chunk_size = chunk_size
        self.id_prefix = id_prefix
        self.on_played = on_played
        self.consumed = 0
        self.calls = 0
        self._last_step: Step | None = None
        self.exhausted: list[Exhaustion] = []
        self._next_id = 0

    # ------------------------------------------------------------------ queue
    def push(self, *steps: Step) -> None:
        self.queue.extend(steps)

    def extend(self, steps: Iterable[Step]) -> None:
        self.queue.extend(steps)

    def clear(self) -> list[Step]:
        """Remove and return the steps not yet played."""
        left = list(self.queue)
        self.queue.clear()
        return left

    @property
    def last(self) -> str | None:
        """The last step played, in DSL form."""
        return describe_step(self._last_step) if self._last_step is not None else None

    @property
    def remaining(self) -> int:
        return len(self.queue)

    # ------------------------------------------------------------------ provider seam
    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        self.calls += 1
        if self.queue and not isinstance(self.queue[0], ScriptedResponse):
            # A factory may be async: play it on the async path.
            return AssistantMessageEventStream(self._play_factory(model, context, options))
        # Plain replies need no awaiting: hand the agent loop a synchronous event source.
        return AssistantMessageEventStream.of_sync(_Reply(self, model, options))

    async def _play_factory(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        step = self.queue[0]
        try:
            resp = await _call_factory(step, context)
        except Exception as e:  # a broken step must not crash the agent: report it as the reply
            self.queue.popleft()
            self.consumed += 1
            self._last_step = step
            yield self._raised(model, e)
            return
        for ev in self._play(model, resp, options):
            yield ev

    def _play(
        self, model: Model, resolved: ScriptedResponse | AssistantMessage | None, options: StreamOptions
    ) -> Iterator[AssistantMessageEvent]:
        signal = options.signal
        taken = self._take(model, resolved, signal)
        if not isinstance(taken, tuple):
            yield taken
            return
        step, message = taken
        n = self.chunk_size
        # Stream into the reply itself: its blocks are re-added one by one as they stream.
        blocks = message.content
        partial = _empty_copy(message, model) if isinstance(resolved, AssistantMessage) else message
        content = partial.content = []
        yield StartEvent(partial)
        i = -1
        for block in blocks:
            i += 1
            if signal is not None and signal.aborted:
                yield from self._cut(step, partial, signal)
                return
            if isinstance(block, ToolCall):
                args = block.arguments
                # Our own freshly built call streams in place; a factory's message is not ours to mutate.
                tc = block if partial is message else ToolCall(block.id, block.name, {}, block.thought_signature)
                tc.arguments = {}
                content.append(tc)
                yield ToolCallStartEvent(i, partial)
                raw = orjson.dumps(args).decode()
                for k in range(0, len(raw), n):
                    yield ToolCallDeltaEvent(i, raw[k : k + n], partial)
                    if signal is not None and signal.aborted:  # cut mid-stream, as a real model's stream is
                        yield from self._cut(step, partial, signal)
                        return
                tc.arguments = args
                yield ToolCallEndEvent(i, tc, partial)
            elif isinstance(block, TextContent):
                cur = TextContent("", block.text_signature)
                content.append(cur)
                yield TextStartEvent(i, partial)
                text = block.text
                for k in range(0, len(text), n):
                    piece = text[k : k + n]
                    cur.text += piece
                    yield TextDeltaEvent(i, piece, partial)
                    if signal is not None and signal.aborted:
                        yield from self._cut(step, partial, signal)
                        return
                yield TextEndEvent(i, cur.text, partial)
            else:
                th = ThinkingContent("", block.thinking_signature, block.redacted)
                content.append(th)
                yield ThinkingStartEvent(i, partial)
                text = block.thinking
                for k in range(0, len(text), n):
                    piece = text[k : k + n]
                    th.thinking += piece
                    yield ThinkingDeltaEvent(i, piece, partial)
                    if signal is not None and signal.aborted:
                        yield from self._cut(step, partial, signal)
                        return
                yield ThinkingEndEvent(i, th.thinking, partial)
        if self.on_played is not None:
            self.on_played(step, partial)
        reason = partial.stop_reason
        if reason == "error" or reason == "aborted":
            yield ErrorEvent(reason, partial)
        else:
            yield DoneEvent(reason, partial)

    def _final(self, model: Model, options: StreamOptions) -> DoneEvent | ErrorEvent:
        """The next reply whole: its final event alone (``_play`` without the stream before it)."""
        taken = self._take(model, None, options.signal)
        if not isinstance(taken, tuple):
            return taken
        step, message = taken
        if self.on_played is not None:
            self.on_played(step, message)
        reason = message.stop_reason
        return ErrorEvent(reason, message) if reason == "error" or reason == "aborted" else DoneEvent(reason, message)

    def _take(
        self, model: Model, resolved: ScriptedResponse | AssistantMessage | None, signal: AbortSignal | None
    ) -> tuple[Step, AssistantMessage] | ErrorEvent:
        """The next step and the reply it makes, or the one event that ends the call instead: the
        queue is empty, the step is broken, or the call was aborted before it streamed."""
        if not self.queue:
            ex = Exhaustion(self.consumed, self.last, self.calls)
            self.exhausted.append(ex)
            return ErrorEvent("error", error_message(model, ex.message()))
        step = self.queue.popleft()
        self._last_step = step
        if isinstance(resolved, ScriptedResponse) and resolved.again:
            self.queue.appendleft(step)  # the factory answers the next call too
        else:
            self.consumed += 1
        try:
            resp = resolved if resolved is not None else step
            assert isinstance(resp, (ScriptedResponse, AssistantMessage))
            message = self._build(model, resp)
        except Exception as e:  # a broken step must not crash the agent: report it as the reply
            return self._raised(model, e)
        if signal is not None and signal.aborted:
            if self.on_played is not None:
                self.on_played(step, message)
            return ErrorEvent("aborted", error_message(model, signal.reason or "Request was aborted", aborted=True))
        return step, message

    def _cut(self, step: Step, partial: AssistantMessage, signal: AbortSignal) -> Iterator[AssistantMessageEvent]:
        """End a reply aborted mid-stream: what streamed so far, stop reason ``aborted``."""
        if self.on_played is not None:
            self.on_played(step, partial)
        partial.stop_reason = "aborted"
        partial.error_message = signal.reason or "Request was aborted"
        yield ErrorEvent("aborted", partial)

    # ------------------------------------------------------------------ building
    def _raised(self, model: Model, e: Exception) -> ErrorEvent:
        return ErrorEvent("error", error_message(model, f"scripted step {self.last} raised {type(e).__name__}: {e}"))

    def _build(self, model: Model, resp: ScriptedResponse | AssistantMessage) -> AssistantMessage:
        if isinstance(resp, AssistantMessage):
            return resp
        content: list[AssistantContent] = []
        for b in resp.content:
            if type(b) is ScriptedToolCall or isinstance(b, ScriptedToolCall):
                if b.id is None:
                    self._next_id += 1
                    call_id = f"{self.id_prefix}{self._next_id}"
                else:
                    call_id = b.id
                content.append(ToolCall(call_id, b.name, b.resolve()))
            else:
                content.append(b)
        usage = resp.usage
        msg = AssistantMessage(
            content, model.api, model.provider, model.id, Usage() if usage is None else usage,
            resp.effective_stop_reason(), None, int(time.time() * 1000),
        )
        if resp.error is not None:
            msg.error_message = resp.error.error_text()
            msg.error_status = resp.error.http_status()
            msg.retry_after = resp.error.retry_after
        return msg


class _Reply(Iterator[AssistantMessageEvent]):
    """The synchronous event source of one plain reply: iterated, it streams the reply in chunks;
    ``final()`` (before any iteration) takes it whole, for a loop where nobody reads the deltas."""

    __slots__ = ("_events", "_model", "_options", "_provider")

    def __init__(self, provider: ScriptedProvider, model: Model, options: StreamOptions) -> None:
        self._provider = provider
        self._model = model
        self._options = options
        self._events: Iterator[AssistantMessageEvent] | None = None

    def __iter__(self) -> Iterator[AssistantMessageEvent]:
        if self._events is None:
            self._events = self._provider._play(self._model, None, self._options)
        return self._events  # the generator itself: a for loop pays nothing for this wrapper

    def __next__(self) -> AssistantMessageEvent:
        return next(iter(self))

    def final(self) -> DoneEvent | ErrorEvent:
        if self._events is not None:
            raise RuntimeError("final() after the reply started streaming")
        self._events = iter(())
        return self._provider._final(self._model, self._options)


def _empty_copy(message: AssistantMessage, model: Model) -> AssistantMessage:
    """A reply with ``message``'s metadata and no content yet: a factory's message is not ours to stream into."""
    return replace(
        message, content=[], api=message.api or model.api, provider=message.provider or model.provider,
        model=message.model or model.id,
    )


async def _call_factory(step: Step, context: Context) -> ScriptedResponse | AssistantMessage:
    assert not isinstance(step, ScriptedResponse)
    out = step(context)
    if inspect.isawaitable(out):
        out = await out
    if not isinstance(out, (ScriptedResponse, AssistantMessage)):
        raise TypeError(
            f"a response factory must return a ScriptedResponse or AssistantMessage, got {type(out).__name__}"
        )
    return out
