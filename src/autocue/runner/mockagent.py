"""The mock agent: a deterministic agent CLI that plays a scenario's timeline (seed 004, mode 1).

It prints each ``llmResponse``'s thinking and text, executes its tool events (``agentToolUse``,
``runCmd``, ``readFile``, ``grep``, ...) with autocue's real tools (mapped through the
``autocue`` tool profile) and fails when a result or status differs from the scenario's
``result`` / ``status`` (compared after normalising line endings and trailing whitespace),
makes each ``agentEdits`` edit with exactly its ``linesAdded`` / ``linesRemoved`` shape and
checks the counts, runs ``--checkpoint-cmd`` after each tool and edit, and reads one line from
its terminal per user input when the timeline waits for the user.

Under ``autocue run`` (``AUTOCUE_MOCK_PROGRESS`` set) it appends JSON lines to that file:
``{"done": N}`` after each reply, ``{"failure": {kind, message, position}}`` per failure, so
the executor synchronises on it and reports ``tool_result`` failures.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from autocue.runner.mockformats import Emitter, make_emitter
from autocue.scenario import (
    AgentEdits,
    AssistantPart,
    ErrorStep,
    LlmResponse,
    Scenario,
    ThinkPart,
    ToolUse,
    UserInputs,
    get_profile,
)


def normalise_result(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


@dataclass(slots=True)
class ToolOutcome:
    text: str
    ok: bool


@dataclass
class MockAgent:
    scenario: Scenario
    cwd: Path
    out: IO[str]
    read_line: Callable[[], str]
    fmt: str = "text"
    checkpoint_cmd: str | None = None
    progress: Path | None = None
    failures: list[dict[str, str]] = field(default_factory=list)
    _tools: dict[str, Any] = field(default_factory=dict)

    def run(self) -> int:
        emit = make_emitter(self.fmt, self.out, self.scenario, self.cwd)
        emit.start(self.scenario.initial_prompt)
        emit.user_turn_start()
        done = 0
        for ev in self.scenario.timeline:
            if isinstance(ev, LlmResponse):
                self._reply(ev, emit)
                done += 1
                self._report({"done": done})
            elif isinstance(ev, UserInputs):
                for inp in ev.inputs:
                    if (inp.target or ev.target or "tui") not in ("tui", "cli"):
                        continue
                    emit.user_turn_end()
                    emit.waiting()
                    line = self.read_line()
                    if not line:
                        emit.end(False, "the input ended (EOF) while the scenario waits for the user")
                        return 1
                    emit.user(line.rstrip("\r\n"))
                    emit.user_turn_start()
        emit.user_turn_end()
        emit.end(not self.failures, f"{len(self.failures)} failure(s)" if self.failures else "")
        return 1 if self.failures else 0

    # ------------------------------------------------------------------ replies
    def _reply(self, ev: LlmResponse, emit: Emitter) -> None:
        emit.reply_start()
        for part in ev.parts:
            if isinstance(part, ThinkPart):
                emit.thinking("".join(s.text for s in part.steps))
            elif isinstance(part, AssistantPart):
                emit.text("".join(s.text for s in part.steps))
            elif isinstance(part, ToolUse):
                self._tool(part, emit)
            elif isinstance(part, AgentEdits):
                self._edit(part, emit)
            elif isinstance(part, ErrorStep):
                emit.error(f"{part.status} {part.message}")
        emit.reply_end()

    def _fail(self, kind: str, message: str, position: str, emit: Emitter, detail: str = "") -> None:
        failure = {"kind": kind, "message": message, "position": position, "detail": detail}
        self.failures.append(failure)
        emit.failure(f"{position}: {message}")
        self._report({"failure": failure})

    def _report(self, msg: dict[str, Any]) -> None:
        if self.progress is not None:
            with self.progress.open("a", encoding="utf-8") as f:
                f.write(json.dumps(msg) + "\n")

    def _tool(self, t: ToolUse, emit: Emitter) -> None:
        call_id = t.tool_call_id or f"call_{len(self._tools) + 1}"
        self._tools[call_id] = t
        emit.tool_call(call_id, t.tool_name, t.args)
        outcome = self._execute(t)
        emit.tool_result(call_id, t.tool_name, outcome.text, outcome.ok)
        if t.status in ("ok", "error") and (t.status == "ok") != outcome.ok:
                self._fail("tool_result", f"{t.tool_name}: status {'ok' if outcome.ok else 'error'}, the scenario "
                           f"expects {t.status} (result: {outcome.text[:200]!r})", str(t.pos), emit)
        if t.result is not None:
            want = normalise_result(t.result if isinstance(t.result, str) else json.dumps(t.result))
            got = normalise_result(outcome.text)
            if want != got:
                diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "actual",
                                                      lineterm=""))
                self._fail("tool_result", f"{t.tool_name}: the result {_short(got)} differs from the scenario's "
                           f"{_short(want)}", str(t.pos), emit, diff)
        self._checkpoint(emit)

    def _execute(self, t: ToolUse) -> ToolOutcome:
        from autocue.tools import BUILTIN_TOOL_NAMES, ToolError, create_builtin_tools

        try:
            name, args = get_profile("autocue").map_call(t.tool_name, dict(t.args))
        except Exception as e:
            return ToolOutcome(f"cannot map {t.tool_name} onto autocue's tools: {e}", False)
        if name not in BUILTIN_TOOL_NAMES:
            return ToolOutcome(f"the mock agent cannot execute {t.tool_name!r} (no autocue tool for it)", False)
        if "tools" not in self._tools:
            self._tools["tools"] = create_builtin_tools(str(self.cwd), BUILTIN_TOOL_NAMES)
        tool = self._tools["tools"][name]
        from autocue.llm.abort import AbortSignal

        async def call() -> Any:
            return await tool.execute("mock", tool.validate(args), AbortSignal(), lambda _u: None)

        try:
            result = asyncio.run(call())
        except ToolError as e:
            return ToolOutcome(str(e), False)
        except Exception as e:
            return ToolOutcome(f"{type(e).__name__}: {e}", False)
        return ToolOutcome(result.text_content, True)

    def _edit(self, e: AgentEdits, emit: Emitter) -> None:
        path = Path(e.path) if Path(e.path).is_absolute() else self.cwd / e.path
        before = path.read_text(encoding="utf-8").splitlines(True) if path.is_file() else []
        if e.lines_removed > len(before):
            self._fail("tool_result", f"agentEdits {e.path}: cannot remove {e.lines_removed} line(s), the file has "
                       f"{len(before)}", str(e.pos), emit)
            return
        if before and not before[-1].endswith("\n"):
            before[-1] += "\n"
        added = [f"line {i + 1} added by the autocue mock agent\n" for i in range(e.lines_added)]
        after = added + before[e.lines_removed:]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(after), encoding="utf-8")
        plus = minus = 0
        for line in difflib.unified_diff(before, after, n=0):
            if line.startswith("+") and not line.startswith("+++"):
                plus += 1
            elif line.startswith("-") and not line.startswith("---"):
                minus += 1
        emit.edit(e.path, plus, minus)
        if (plus, minus) != (e.lines_added, e.lines_removed):
            self._fail("tool_result", f"agentEdits {e.path}: the edit changed +{plus} -{minus} lines, the scenario "
                       f"says +{e.lines_added} -{e.lines_removed}", str(e.pos), emit)
        self._checkpoint(emit)

    def _checkpoint(self, emit: Emitter) -> None:
        if not self.checkpoint_cmd:
            return
        proc = subprocess.run(["sh", "-c", self.checkpoint_cmd], cwd=self.cwd, capture_output=True, text=True)
        if proc.returncode != 0:
            self._fail("tool_result", f"--checkpoint-cmd exited with {proc.returncode}: "
                       f"{(proc.stderr or proc.stdout).strip()[:200]}", str(self.scenario.pos), emit)


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def main_mock_agent(scenario: Scenario, *, fmt: str, checkpoint_cmd: str | None, cwd: Path) -> int:
    progress = os.environ.get("AUTOCUE_MOCK_PROGRESS")
    agent = MockAgent(scenario, cwd, sys.stdout, sys.stdin.readline, fmt, checkpoint_cmd,
                      Path(progress) if progress else None)
    return agent.run()
