"""``run_scenario``: play a YAML scenario in-process through a ``TestSession``.

The scenario compiles to the shared Script model; a tool profile maps its tool names
(``readFile``, ``writeFile``, ``runCmd``, ...) onto the agent's own (``read``, ``write``,
``bash`` for autocue). The scenario's repo files are written into the session's cwd (and
``git init`` run when it asks), tools run for real unless mocked, and each ``assert`` step is
evaluated just before the reply it precedes is played — never short-circuited. A failed
assertion fails the run with ``ScenarioAssertionError`` listing every check.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue import suite_coverage
from autocue.llm.types import AssistantMessage, Context, TextContent, ToolResultMessage
from autocue.scenario import AssertReport, AssertSpec, Scenario, apply_profile, evaluate_assert, load_scenario
from autocue.script.model import ScriptedResponse, Step, Turn
from autocue.testing.errors import HarnessError, hide_harness_frame
from autocue.testing.errors import ScenarioAssertionError as ScenarioAssertionError
from autocue.testing.session import TestSession, create_test_session


@dataclass
class AssertionOutcome:
    turn: int
    before_step: int
    spec: AssertSpec
    report: AssertReport

    @property
    def passed(self) -> bool:
        return self.report.passed


@dataclass
class ScenarioRun:
    """The result of ``run_scenario``: the session (events, cwd) and every assertion outcome."""

    scenario: Scenario
    session: TestSession
    assertions: list[AssertionOutcome] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(a.passed for a in self.assertions)

    @property
    def events(self) -> Any:
        return self.session.events

    def retries(self) -> list[str]:
        """One note per model error the session retried: what was served and how the retry ended."""
        ends = self.events.of_type("auto_retry_end")
        notes: list[str] = []
        for start in self.events.of_type("auto_retry_start"):
            served = str(start.error_message).split(":", 1)[0]
            done = next((e for e in ends if e.attempt == start.attempt), None)
            outcome = "" if done is None else ", succeeded" if done.success else ", failed"
            notes.append(f"{served} served, retried (attempt {start.attempt} of {start.max_attempts}{outcome})")
        return notes

    def summary(self) -> str:
        """What the run did, from its events: replies played, tool calls, errors served and retried,
        assert steps — e.g. ``3 replies played, 2 tool calls (read, write), no assertions``."""
        n = self.session.playbook.consumed
        tools = self.events.tool_sequence()
        parts = [f"{n} repl{'y' if n == 1 else 'ies'} played",
                 f"{len(tools)} tool call{'s' * (len(tools) != 1)}" + (f" ({', '.join(tools)})" if tools else "")]
        parts += self.retries()
        if self.assertions:
            checks = sum(a.spec.count for a in self.assertions)
            k = len(self.assertions)
            parts.append(f"{k} assert step{'s' * (k != 1)} ({checks} check{'s' * (checks != 1)}) passed"
                         if self.passed else f"{sum(not a.passed for a in self.assertions)} of {k} assert steps failed")
        else:
            parts.append("no assertions")
        return ", ".join(parts)


def _run_text(messages: list[Any]) -> str:
    """What a terminal would have shown: assistant text and tool output so far."""
    return "\n".join(b.text for m in messages if isinstance(m, (AssistantMessage, ToolResultMessage))
                     for b in m.content if isinstance(b, TextContent))


def prepare_repo(scenario: Scenario, cwd: Path) -> None:
    """Write the scenario's repo files into ``cwd`` (and ``git init`` it when the scenario asks)."""
    repo = scenario.repo
    if repo is None:
        return
    for f in repo.files:
        target = (cwd / f.path).resolve()
        if not target.is_relative_to(cwd.resolve()):
            raise HarnessError(f"scenario {scenario.name}: repo file {f.path!r} is outside the workspace")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(f.contents, bytes):
            target.write_bytes(f.contents)
        else:
            target.write_text(f.contents)
    if repo.init:
        env = {**os.environ, "GIT_AUTHOR_NAME": "autocue", "GIT_AUTHOR_EMAIL": "autocue@localhost",
               "GIT_COMMITTER_NAME": "autocue", "GIT_COMMITTER_EMAIL": "autocue@localhost"}
        commit = ["git", "commit", "-q", "-m", "initial", "--allow-empty"]
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], commit):
            subprocess.run(cmd, cwd=cwd, check=True, env=env, capture_output=True)


def _with_checks(turn: Turn, turn_no: int, run: ScenarioRun) -> tuple[Turn, list[AssertSpec]]:
    """Wrap the steps that have checks before them; return the checks due after the turn's last step."""
    by_step: dict[int, list[AssertSpec]] = {}
    for c in turn.checks:
        if isinstance(c.spec, AssertSpec):
            by_step.setdefault(c.before_step, []).append(c.spec)
    steps: list[Step] = []
    for i, step in enumerate(turn.steps):
        specs = by_step.get(i)
        if not specs:
            steps.append(step)
            continue

        def checked(ctx: Context, step: Step = step, specs: list[AssertSpec] = specs, i: int = i) -> Any:
            _evaluate(run, turn_no, i, specs)
            return step if isinstance(step, ScriptedResponse) else step(ctx)

        checked.__name__ = f"checked_{i}"
        steps.append(checked)
    after = [s for k, specs in by_step.items() if k >= len(turn.steps) for s in specs]
    return Turn(turn.prompt, steps, [], turn.pos), after


def _evaluate(run: ScenarioRun, turn_no: int, before_step: int, specs: list[AssertSpec]) -> None:
    """Evaluate ``specs`` now (on the workspace and the text shown so far) and record their outcomes."""
    text = _run_text(list(run.session.session.messages))
    for spec in specs:
        report = evaluate_assert(spec, run.session.cwd, text=text)
        run.assertions.append(AssertionOutcome(turn_no, before_step, spec, report))


def run_scenario(
    path: str | os.PathLike[str] | Scenario,
    *,
    profile: str = "autocue",
    extensions: list[str] | None = None,
    mock_tools: Mapping[str, Any] | None = None,
    mock_ui: Mapping[str, Any] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    auto_assert: bool = True,
    **session_options: Any,
) -> ScenarioRun:
    """Play a scenario in-process; raises ``ScenarioAssertionError`` when an ``assert`` step fails.

    Returns the ``ScenarioRun`` (its ``session`` is already disposed unless ``cwd`` was given,
    in which case the files stay there to inspect).
    """
    __tracebackhide__ = hide_harness_frame  # pytest: the test's line and the failed checks, not this frame
    scenario = path if isinstance(path, Scenario) else load_scenario(Path(path))
    script = apply_profile(scenario.compile(), profile)
    if suite_coverage.COLLECTOR is not None:
        suite_coverage.COLLECTOR.profile(profile, "run_scenario")
    t = create_test_session(
        extensions=extensions, mock_tools=mock_tools, mock_ui=mock_ui, cwd=cwd, auto_assert=auto_assert,
        **session_options,
    )
    run = ScenarioRun(scenario, t)
    try:
        prepare_repo(scenario, t.cwd)
        for n, turn in enumerate(script.turns, start=1):
            wrapped, after = _with_checks(turn, n, run)
            t.run_sync(wrapped)
            _evaluate(run, n, len(turn.steps), after)
        failed = [a for a in run.assertions if not a.passed]
        if failed and auto_assert:
            lines = [f"scenario {scenario.name}: {len(failed)} of {len(run.assertions)} assert step(s) failed"]
            for a in failed:
                lines.append(f"  turn {a.turn}, before reply {a.before_step + 1}: {a.spec.describe()}")
                for r in a.report.results:
                    mark = "ok  " if r.passed else "FAIL"
                    lines.append(f"    {mark} {r.check}: expected {r.expected!r}, got {r.actual!r}")
            raise ScenarioAssertionError("\n".join(lines))
    except HarnessError as e:
        e.transcript = t.transcript()  # for a caller that prints it (autocue scenario run)
        raise
    finally:
        t.dispose()
    return run
