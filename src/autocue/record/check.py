"""``autocue record --check``: replay a recording's conversation against a live upstream and
classify the drift of each reply.

For every recorded reply, in order, the upstream gets the conversation as recorded up to that
point: the turns' user prompts, the recorded replies before it (text, thinking, tool calls
with their recorded ids) and a tool result for each recorded call (the recording's
``toolResult`` when it has one, else ``(tool result not recorded)``). The request declares
every tool the recording calls (parameters ``{"type": "object"}``). The upstream's reply is
read by autocue's own provider for ``--api`` (timings measured as ``autocue record`` does) and
compared with the recorded one by ``autocue.scenario.drift`` (benign: ids, timing, usage;
regression: text, tool calls, order, ...). A recorded error step (a 429, a 5xx) is a retry in
the conversation: it is sent once more and compared like any reply.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from autocue.catalog.apis import APIS
from autocue.llm.providers.http import HttpProvider
from autocue.llm.stream import StreamOptions
from autocue.llm.types import (
    AssistantContent,
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from autocue.record.capture import PROVIDERS
from autocue.record.errors import CheckError as CheckError
from autocue.scenario.drift import DriftReport, diff_scripts, reply_metas
from autocue.scenario.model import LlmResponse, Scenario, ToolResultPart
from autocue.script.model import Block, Script, ScriptedError, ScriptedResponse, ScriptedToolCall, Turn

NOT_RECORDED = "(tool result not recorded)"

CHECK_APIS = tuple(PROVIDERS)


@dataclass(slots=True)
class CheckOptions:
    upstream: str
    api: str = "chat"
    model: str = "autocue-check"
    api_key: str | None = None
    timeout: float = 120.0


def _tool_results(sc: Scenario) -> dict[str, str]:
    """Recorded tool results by call id (``toolResult`` elements)."""
    out: dict[str, str] = {}
    for ev in sc.timeline:
        if isinstance(ev, LlmResponse):
            for p in ev.parts:
                if isinstance(p, ToolResultPart) and p.tool_call_id:
                    c = p.content
                    out[p.tool_call_id] = c if isinstance(c, str) else str(c)
    return out


def _as_message(step: ScriptedResponse, n: int) -> tuple[AssistantMessage, list[tuple[str, str]]]:
    content: list[AssistantContent] = []
    calls: list[tuple[str, str]] = []
    for k, b in enumerate(step.content):
        if isinstance(b, ScriptedToolCall):
            cid = b.id or f"call_{n}_{k}"
            content.append(ToolCall(cid, b.name, b.resolve()))
            calls.append((cid, b.name))
        else:
            content.append(b)
    return AssistantMessage(content=content, stop_reason=step.effective_stop_reason()), calls


def _as_step(msg: AssistantMessage, starts: list[float]) -> ScriptedResponse:
    if msg.stop_reason in ("error", "aborted") and not msg.content:
        return ScriptedResponse(error=ScriptedError(msg.error_message or "the upstream reply failed",
                                                    status=msg.error_status or 500, retry_after=msg.retry_after))
    content: list[Block] = []
    delays: list[int] = []
    prev = 0.0
    for i, b in enumerate(msg.content):
        t = starts[i] if i < len(starts) else prev
        if isinstance(b, ToolCall):
            content.append(ScriptedToolCall(b.name, dict(b.arguments), b.id))
            delays.append(0)
        elif isinstance(b, (TextContent, ThinkingContent)):
            content.append(b)
            delays.append(max(0, round((t - prev) * 1000)))
        prev = max(prev, t)
    return ScriptedResponse(content=content, stop_reason=msg.stop_reason, usage=msg.usage, chunk_delays_ms=delays)


async def _ask(provider: HttpProvider, model: Model, ctx: Context, key: str) -> ScriptedResponse:
    stream = provider.stream(model, ctx, StreamOptions(api_key=key))
    t0 = time.perf_counter()
    starts: list[float] = []
    async for ev in stream:
        if ev.type in ("text_start", "thinking_start", "toolcall_start"):
            starts.append(time.perf_counter() - t0)
    return _as_step(await stream.result(), starts)


async def check_drift(sc: Scenario, options: CheckOptions) -> DriftReport:
    """Ask the upstream for each recorded reply (on the recorded conversation) and compare."""
    if options.api not in PROVIDERS:
        raise CheckError(f"--api {options.api!r}: give one of {', '.join(CHECK_APIS)} (the API to speak to the "
                         "upstream)")
    script = sc.compile()
    if script.step_count == 0:
        raise CheckError(f"{sc.file}: the recording has no reply to check")
    results = _tool_results(sc)
    names: dict[str, None] = {}
    for step in script.all_steps():
        if not isinstance(step, ScriptedResponse):
            raise CheckError(f"{sc.file}: a reply built by a response factory cannot be checked")
        for c in step.tool_calls:
            names.setdefault(c.name)
    tools = [Tool(n, f"recorded tool {n}", {"type": "object"}) for n in names]
    cls, api_name = PROVIDERS[options.api]
    provider = cls(timeout=options.timeout)
    suffix = APIS[options.api].base_path
    model = Model(id=options.model, api=api_name, provider="upstream", base_url=options.upstream.rstrip("/") + suffix)
    key = options.api_key or "autocue-check"
    got = Script(name=script.name, pos=script.pos)
    messages: list[Message] = []
    n = 0
    for turn in script.turns:
        if turn.prompt:
            messages.append(UserMessage(turn.prompt))
        out = Turn(turn.prompt)
        got.turns.append(out)
        for step in turn.steps:
            assert isinstance(step, ScriptedResponse)
            n += 1
            out.steps.append(await _ask(provider, model, Context(None, list(messages), tools), key))
            if step.error is not None:
                continue  # a failed call: the agent asks again with the same conversation
            msg, calls = _as_message(step, n)
            messages.append(msg)
            for cid, name in calls:
                messages.append(ToolResultMessage(cid, name, [TextContent(results.get(cid, NOT_RECORDED))]))
    return diff_scripts(script, got, metas_a=reply_metas(sc), metas_b=None)


def check_json(report: DriftReport, scenario: str, upstream: str) -> dict[str, Any]:
    return {"scenario": scenario, "upstream": upstream, **report.to_json()}
