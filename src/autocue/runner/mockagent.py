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

Its start-up is part of every ``--agent mock`` run, so it imports only what a plan uses (the
tools it calls, on their first call), and ``mock_agent_argv(plan)``, how the executor starts it,
gives its Python a bytecode cache of its own (``-X pycache_prefix=``, in
``$XDG_CACHE_HOME/autocue/pycache``), which it writes even under ``PYTHONDONTWRITEBYTECODE``
(that variable keeps ``__pycache__`` out of source trees; this cache is outside them, and the
option is not passed on to the programs its tools run): a run of 100 scenarios compiles the
modules it imports once, not 100 times. With a prefix Python reads no ``__pycache__`` at all,
so the flag is set before the first import that is not frozen, the standard library's included.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from autocue.runner.mockformats import Emitter, make_emitter


def bytecode_cache() -> Path:
    """Where the mock agent's Python keeps its bytecode under ``autocue run``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autocue" / "pycache"


_START = "import sys; sys.dont_write_bytecode = False; from autocue.cli.main import main; sys.exit(main())"
"""``autocue mock-agent``, writing bytecode from its first import on (all but Python's frozen modules)."""


def mock_agent_argv(plan: Path) -> list[str]:
    """The command that plays ``plan`` (a JSON file) as the mock agent (``autocue mock-agent --plan``)."""
    return [sys.executable, "-X", f"pycache_prefix={bytecode_cache()}", "-c", _START, "mock-agent", "--plan",
            str(plan)]


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
    plan: dict[str, Any]
    """What ``autocue.runner.mockplan.plan_from_scenario`` makes of a scenario."""
    cwd: Path
    out: IO[str]
    read_line: Callable[[], str]
    fmt: str = "text"
    checkpoint_cmd: str | None = None
    progress: Path | None = None
    failures: list[dict[str, str]] = field(default_factory=list)
    calls: int = 0
    _tools: dict[str, Any] = field(default_factory=dict)

    def run(self) -> int:
        emit = make_emitter(self.fmt, self.out, self.plan["name"], self.cwd)
        emit.start(self.plan.get("prompt"))
        emit.user_turn_start()
        done = 0
        unreported = False
        events = self.plan["events"]
        for i, ev in enumerate(events):
            if "reply" in ev:
                self._reply(ev["reply"], emit)
                done += 1
                # a reply is reported done once all the agent prints before it next waits (its prompt, its
                # end) is written: the executor may type the moment it reads this, so that output must not race
                # the input's echo
                unreported = not (i + 1 < len(events) and "reply" in events[i + 1])
                if not unreported:
                    self._report({"done": done})
            else:
                for _ in range(int(ev.get("inputs", 0))):
                    emit.user_turn_end()
                    emit.waiting()
                    if unreported:
                        self._report({"done": done})
                        unreported = False
                    line = self.read_line()
                    if not line:
                        emit.end(False, "the input ended (EOF) while the scenario waits for the user")
                        return 1
                    emit.user(line.rstrip("\r\n"))
                    emit.user_turn_start()
        emit.user_turn_end()
        emit.end(not self.failures, f"{len(self.failures)} failure(s)" if self.failures else "")
        if unreported:
            self._report({"done": done})
        return 1 if self.failures else 0

    # ------------------------------------------------------------------ replies
    def _reply(self, parts: list[dict[str, Any]], emit: Emitter) -> None:
        emit.reply_start()
        for part in parts:
            if "think" in part:
                emit.thinking(part["think"])
            elif "text" in part:
                emit.text(part["text"])
            elif "tool" in part:
                self._tool(part["tool"], emit)
            elif "edit" in part:
                self._edit(part["edit"], emit)
            elif "error" in part:
                emit.error(part["error"])
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

    def _tool(self, t: dict[str, Any], emit: Emitter) -> None:
        call_id = t.get("id") or f"call_{self.calls + 1}"
        self.calls += 1
        name, status = t["name"], t.get("status")
        emit.tool_call(call_id, name, t["args"])
        outcome = self._execute(t)
        emit.tool_result(call_id, name, outcome.text, outcome.ok)
        if status in ("ok", "error") and (status == "ok") != outcome.ok:
            self._fail("tool_result", f"{name}: status {'ok' if outcome.ok else 'error'}, the scenario expects "
                       f"{status} (result: {outcome.text[:200]!r})", t["pos"], emit)
        if t.get("result") is not None:
            want = normalise_result(t["result"])
            got = normalise_result(outcome.text)
            if want != got:
                import difflib

                diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "actual",
                                                      lineterm=""))
                self._fail("tool_result", f"{name}: the result {_short(got)} differs from the scenario's "
                           f"{_short(want)}", t["pos"], emit, diff)
        self._checkpoint(emit)

    def _execute(self, t: dict[str, Any]) -> ToolOutcome:
        import asyncio

        return asyncio.run(run_tool(t, self.cwd, self._tools))

    def _edit(self, e: dict[str, Any], emit: Emitter) -> None:
        rel, want_added, want_removed, pos = e["path"], int(e["added"]), int(e["removed"]), e["pos"]
        path = self.cwd / rel  # an absolute path stays as it is
        before = path.read_text(encoding="utf-8").splitlines(True) if path.is_file() else []
        if want_removed > len(before):
            self._fail("tool_result", f"agentEdits {rel}: cannot remove {want_removed} line(s), the file has "
                       f"{len(before)}", pos, emit)
            return
        after, plus, minus = scripted_edit(before, want_added, want_removed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(after, encoding="utf-8")
        emit.edit(rel, plus, minus)
        if (plus, minus) != (want_added, want_removed):
            self._fail("tool_result", f"agentEdits {rel}: the edit changed +{plus} -{minus} lines, the scenario "
                       f"says +{want_added} -{want_removed}", pos, emit)
        self._checkpoint(emit)

    def _checkpoint(self, emit: Emitter) -> None:
        if not self.checkpoint_cmd:
            return
        import subprocess

        proc = subprocess.run(["sh", "-c", self.checkpoint_cmd], cwd=self.cwd, capture_output=True, text=True)
        if proc.returncode != 0:
            self._fail("tool_result", f"--checkpoint-cmd exited with {proc.returncode}: "
                       f"{(proc.stderr or proc.stdout).strip()[:200]}", str(self.plan.get("pos", "")), emit)


async def run_tool(t: dict[str, Any], cwd: Path, tools: dict[str, Any], signal: Any = None) -> ToolOutcome:
    """Run a plan's tool call (``t["mapped"]``) with autocue's real tool in ``cwd``; ``tools`` caches the
    tools made so far, ``signal`` (an ``AbortSignal``) stops it."""
    if t.get("mapped") is None:
        return ToolOutcome(t.get("map_error") or f"cannot map {t['name']} onto autocue's tools", False)
    name, args = t["mapped"]
    # only the tools the scenario calls are imported (each on its first call): start-up counts
    from autocue.tools.common import ToolError
    from autocue.tools.registry import TOOL_FACTORIES

    if name not in TOOL_FACTORIES:
        return ToolOutcome(f"the mock agent cannot execute {t['name']!r} (no autocue tool for it)", False)
    tool = tools.get(name)
    if tool is None:
        tool = tools[name] = TOOL_FACTORIES[name](str(cwd))
    from autocue.llm.abort import AbortSignal

    try:
        result = await tool.execute("mock", tool.validate(args), signal or AbortSignal(), lambda _u: None)
    except ToolError as e:
        return ToolOutcome(str(e), False)
    except Exception as e:
        return ToolOutcome(f"{type(e).__name__}: {e}", False)
    return ToolOutcome(result.text_content, True)


def scripted_edit(before: list[str], added: int, removed: int) -> tuple[str, int, int]:
    """An ``agentEdits`` edit of a file's lines ``before``: ``added`` new lines replace its first
    ``removed`` ones. Returns the new text and the lines it adds and removes (by a diff)."""
    before = list(before)
    if before and not before[-1].endswith("\n"):
        before[-1] += "\n"
    new = [f"line {i + 1} added by the autocue mock agent\n" for i in range(added)]
    after = new + before[removed:]
    plus = minus = 0
    import difflib

    for line in difflib.unified_diff(before, after, n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return "".join(after), plus, minus


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def main_mock_agent(plan: dict[str, Any], *, fmt: str, checkpoint_cmd: str | None, cwd: Path) -> int:
    progress = os.environ.get("AUTOCUE_MOCK_PROGRESS")
    agent = MockAgent(plan, cwd, sys.stdout, sys.stdin.readline, fmt, checkpoint_cmd,
                      Path(progress) if progress else None)
    return agent.run()
