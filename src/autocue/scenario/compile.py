"""Compile a ``Scenario`` onto the ``Script`` model every back-end plays.

Rules (documented in ``docs/scenarios.md``):

- **Turns.** The first turn's prompt is the first ``userInputs`` seen before any reply, else
  ``initialPrompt`` (else ``None``: the runner supplies one). Every later ``userInputs``
  starts a new turn whose prompt is its inputs joined with newlines.
- **Replies.** An ``llmResponse`` group is one ``ScriptedResponse``: one ``ThinkingContent``
  per ``think`` step, one ``TextContent`` per ``assistant`` step, one ``ScriptedToolCall``
  per tool element, in order. A tool event written after a reply (``agentToolUse``, or a
  tool-named event like ``runCmd``) joins that reply when it has no tool call yet, so
  "text, then call" is one model response; otherwise it is a reply of its own (one call per
  reply: the agent sees each result before the next call). Legacy top-level ``think`` /
  ``assistant`` events merge into the open legacy reply the same way.
- **Timing.** ``chunk_delays_ms[i]`` is the delay before content block ``i`` (the step's
  ``ms``; 0 for tool calls). ``advanceMs`` is runner time and does not delay replies.
- **Recorded usage.** An ``llmResponse``'s ``_meta`` (what ``autocue record`` writes) gives the
  reply its ``usage`` (``{input, output, cacheRead, cacheWrite}``) and ``stopReason``, so a
  replay reports the recorded numbers instead of the server's estimate.
- **Errors.** An ``error`` step is a reply whose ``ScriptedError`` carries status, body and
  retry-after (429 → ``rate_limit``, 529/503 → ``overloaded``).
- **Expectations.** An ``expectRequest`` step is a ``Check`` like ``assert`` whose spec is a
  ``RequestExpectation`` (the mock server compares it with the request; in-process runs skip it).
- **Replies built from the request.** ``callEveryTool`` is two steps (``script/every_tool.py``): a
  response factory that calls every tool the request declares with arguments drawn from its schema
  (one reply, or one per tool), then the answer; ``structuredOutput`` is one factory whose text is
  JSON satisfying the request's response schema.
- **Checks.** An ``assert`` step is ``Check(before_step=<replies so far in the turn>, spec=AssertSpec)``;
  ``before_step == len(turn.steps)`` means "when the turn has finished".
- Tool names and arguments stay the scenario's canonical ones; map them with a profile
  (``apply_profile``). ``agentEdits``, ``toolResult``, ``agentPlan``, user edits/commands,
  screenshots, ``complete``/``merge`` are runner events and produce no steps
  (``TIMELINE_HANDLERS`` / ``TIMELINE_IGNORED``: the compiler's decision about each event kind).
- **Positions.** Every step, check, turn and the script carry the ``Pos`` they were written at
  (``.source`` renders ``file:line``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, get_args

from autocue.llm.types import StopReason, TextContent, ThinkingContent, Usage
from autocue.scenario.errors import Pos
from autocue.scenario.events import check_interpreter, handler
from autocue.scenario.timeline import (
    AdvanceMs,
    AssertStep,
    AssistantPart,
    CallEveryTool,
    Complete,
    ErrorStep,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    RunnerEvent,
    Screenshot,
    StructuredOutput,
    ThinkPart,
    TimelineEvent,
    ToolUse,
    UserCommand,
    UserEdits,
    UserInputs,
)
from autocue.script.model import Check, ErrorKind, Script, ScriptedError, ScriptedResponse, ScriptedToolCall, Turn


class Compilable(Protocol):
    """What the compiler reads of a ``Scenario`` (``model.py`` imports this module, not the other way)."""

    @property
    def name(self) -> str: ...
    @property
    def pos(self) -> Pos: ...
    @property
    def initial_prompt(self) -> str | None: ...
    @property
    def timeline(self) -> Sequence[TimelineEvent]: ...

_STOP_REASONS = frozenset(get_args(StopReason))


def _count(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


def recorded_usage(meta: dict[str, Any]) -> Usage | None:
    """The ``usage`` an ``llmResponse``'s ``_meta`` carries (as ``autocue record`` writes it:
    ``{input, output, cacheRead, cacheWrite}``), or None."""
    u = meta.get("usage")
    if not isinstance(u, dict):
        return None
    inp, out, cr, cw = (_count(u.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite"))
    return Usage(inp, out, cr, cw, inp + out + cr + cw)


def recorded_stop_reason(meta: dict[str, Any]) -> StopReason | None:
    """The ``stopReason`` of ``_meta`` when it is one a reply can play (``stop``, ``length``,
    ``toolUse``), else None (the compiler's default)."""
    r = meta.get("stopReason")
    if r in _STOP_REASONS and r not in ("error", "aborted"):
        return r  # type: ignore[no-any-return]
    return None


def recorded_request(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """The fingerprint of the recorded request (``_meta.request``, written by ``autocue record``), or None."""
    req = meta.get("request") if meta else None
    return req if isinstance(req, dict) else None


def scripted_error(e: ErrorStep) -> ScriptedError:
    """The ``ScriptedError`` an ``error`` step plays as."""
    etype = e.error_type or ""
    kind: ErrorKind = "error"
    if e.status == 429 or etype == "rate_limit_error":
        kind = "rate_limit"
    elif e.status in (503, 529) or etype == "overloaded_error":
        kind = "overloaded"
    elif etype == "context_length_exceeded" or "prompt is too long" in e.message:
        kind = "context_overflow"
    body = e.body
    if body is None and e.error_type is not None:
        inner: dict[str, Any] = {"type": e.error_type, "message": e.message}
        if e.details is not None:
            inner["details"] = e.details
        body = {"type": "error", "error": inner}
    return ScriptedError(e.message, kind, e.status, e.retry_after, body)


class _Compiler:
    __slots__ = ("open_legacy", "pending", "script", "turn")

    def __init__(self, sc: Compilable) -> None:
        self.script = Script(name=sc.name, pos=sc.pos)
        self.turn = Turn(prompt=sc.initial_prompt, pos=sc.pos)
        self.script.turns.append(self.turn)
        self.pending: ScriptedResponse | None = None
        self.open_legacy = False
        """Whether ``pending`` is a legacy reply that later think/assistant events may extend."""

    def new_reply(self, pos: Pos) -> ScriptedResponse:
        r = ScriptedResponse(content=[], chunk_delays_ms=[], pos=pos)
        self.turn.steps.append(r)
        self.pending = r
        return r

    def close(self) -> None:
        self.pending = None
        self.open_legacy = False

    def add_text(self, r: ScriptedResponse, part: ThinkPart | AssistantPart) -> None:
        delays = r.chunk_delays_ms
        assert delays is not None
        think = isinstance(part, ThinkPart)
        for s in part.steps:
            r.content.append(ThinkingContent(s.text) if think else TextContent(s.text))
            delays.append(s.ms)

    def add_call(self, r: ScriptedResponse, t: ToolUse) -> None:
        r.content.append(ScriptedToolCall(t.tool_name, dict(t.args), t.tool_call_id))
        assert r.chunk_delays_ms is not None
        r.chunk_delays_ms.append(0)

    def response(self, ev: LlmResponse) -> None:
        if ev.grouped:
            err = next((p for p in ev.parts if isinstance(p, ErrorStep)), None)
            if err is not None:
                self.close()
                self.turn.steps.append(ScriptedResponse(error=scripted_error(err), pos=ev.pos,
                                                        fingerprint=recorded_request(ev.meta)))
                return
            r = self.new_reply(ev.pos)
            r.chaos = ev.chaos
            for p in ev.parts:
                if isinstance(p, (ThinkPart, AssistantPart)):
                    self.add_text(r, p)
                elif isinstance(p, ToolUse):
                    self.add_call(r, p)
            if ev.meta:
                r.usage, r.stop_reason = recorded_usage(ev.meta), recorded_stop_reason(ev.meta)
                r.fingerprint = recorded_request(ev.meta)
            self.open_legacy = False
            return
        part = ev.parts[0]
        if isinstance(part, ErrorStep):
            self.close()
            self.turn.steps.append(ScriptedResponse(error=scripted_error(part), pos=ev.pos))
        elif isinstance(part, (ThinkPart, AssistantPart)):
            cur = self.pending
            if cur is None or not self.open_legacy or cur.tool_calls:
                cur = self.new_reply(ev.pos)
                self.open_legacy = True
            cur.chaos = ev.chaos or cur.chaos
            self.add_text(cur, part)
        elif isinstance(part, ToolUse):
            cur = self.pending
            if cur is None or cur.tool_calls:
                cur = self.new_reply(ev.pos)
            cur.chaos = ev.chaos or cur.chaos
            self.add_call(cur, part)
            self.open_legacy = False
        # agentEdits / toolResult / agentPlan: runner records, no model step

    def user(self, ev: UserInputs) -> None:
        self.close()
        prompt = ev.text
        t = self.turn
        if not t.steps and not t.checks:
            t.prompt = prompt
            t.pos = ev.pos
            return
        self.turn = Turn(prompt=prompt, pos=ev.pos)
        self.script.turns.append(self.turn)

    def every_tool(self, ev: CallEveryTool) -> None:
        from autocue.script.every_tool import call_every_tool  # loaded by the first scenario that asks

        self.close()
        self.turn.steps.extend(call_every_tool(ev.seed, ev.then, parallel=ev.parallel, output_tool=ev.output_tool,
                                               tools=ev.tools, pos=ev.pos))

    def structured(self, ev: StructuredOutput) -> None:
        from autocue.script.every_tool import structured_output

        self.close()
        if ev.has_value:
            self.turn.steps.append(structured_output(value=ev.value, pos=ev.pos))
        else:
            self.turn.steps.append(structured_output(ev.seed, pos=ev.pos))

    def check(self, ev: AssertStep | ExpectRequestStep) -> None:
        self.close()
        self.turn.checks.append(Check(len(self.turn.steps), ev.spec, ev.pos))


TIMELINE_HANDLERS: dict[type, Callable[[_Compiler, Any], None]] = {
    LlmResponse: _Compiler.response,
    UserInputs: _Compiler.user,
    AssertStep: _Compiler.check,
    ExpectRequestStep: _Compiler.check,
    CallEveryTool: _Compiler.every_tool,
    StructuredOutput: _Compiler.structured,
}
TIMELINE_IGNORED: dict[type, str] = {
    cls: "a runner event: it compiles to no model step"
    for cls in (UserEdits, UserCommand, AdvanceMs, Screenshot, Complete, Merge, RunnerEvent)
}
check_interpreter(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED)


def compile_scenario(sc: Compilable) -> Script:
    """The ``Script`` for ``sc`` (a fresh object on every call)."""
    c = _Compiler(sc)
    for ev in sc.timeline:
        if (handle := handler(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED, ev)) is not None:
            handle(c, ev)
    return c.script
