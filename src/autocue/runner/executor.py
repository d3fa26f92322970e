"""Run one scenario: workspace, program in a pty, the timeline, the checks at the end.

Timeline semantics (see docs/runner.md): model replies (``llmResponse``) are played by the
program's side (the embedded server, or the mock agent itself); every other event is the
executor's, in order. Before each of those, the executor *synchronises*: it waits until the
program has been served every reply written before the event (the server's count, or the mock
agent's progress file) and the screen has been quiet for ``settle`` seconds (never inside a
synchronized update). Then: ``userInputs`` are typed (keys as separate writes, each after the
echo of the text before), ``userEdits`` patches are applied, ``userCommand`` runs, ``screenshot``
compares the masked screen with its golden, ``assert`` is evaluated on the workspace and the
screen; ``advanceMs`` (and the ``[ms, ...]`` of inputs) are logical time, slept only at
``speed > 0``. Failures are recorded and the timeline goes on.

The first key typed into the program (the typed ``initialPrompt`` of a real agent's TUI, else the
first ``userInputs`` event) waits for the launch profile's ``ready`` text, the sign that its input
box takes keys (a quiet screen only, for programs without one: ``--cmd``, the mock agent,
autocue's own CLI). Later inputs do not: opencode never shows its ``ready`` text again once a
session is open, and the sync before them already waited for the program's answer.

The end: with ``expect.exitCode`` the program must exit by itself before the deadline (else its
process group is killed: ``timeout``). Without it, once the timeline is done the executor syncs a
last time (every scripted reply served, a quiet screen) and ends a program still running itself:
it types the launch profile's ``quit_input`` (``<ctrl-d>`` for a command or a profile without
one), waits for the exit until the program was quiet for ``QUIT_GRACE`` seconds (``QUIT_LIMIT``
at most), then stops the process group (SIGTERM, SIGKILL after ``TERM_GRACE``); the result says
``ended_by_runner``. Then ``expect`` is checked.

An interrupt of ``autocue run`` (SIGINT, SIGTERM: ``autocue.runner.interrupt``) raises ``Interrupted``
from the run's next wait; the run cleans up as any run (the process group stopped: SIGTERM, SIGKILL
after ``TERM_GRACE``) and its workspace is removed unless ``keep``: an interrupt is not a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue import suite_coverage, telemetry
from autocue.process import capture_sync
from autocue.runner.cast import CastWriter
from autocue.runner.extras import RunnerExtras, TerminalProfile, terminal_profile
from autocue.runner.goldens import apply_masks, check_golden, existing_golden, golden_dir, safe_name
from autocue.runner.interrupt import Interrupt, Interrupted
from autocue.runner.keys import key_bytes, parse_input
from autocue.runner.launch import Choice, Launch, LaunchError, build, choose, interactive, script_for
from autocue.runner.options import RunOptions
from autocue.runner.pty import PtyProgram, SpawnError
from autocue.runner.report import ScenarioResult
from autocue.runner.workspace import WorkspaceError, missing_artifact, seed_workspace
from autocue.scenario import (
    AdvanceMs,
    AssertStep,
    CallEveryTool,
    Complete,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    RunnerEvent,
    Scenario,
    ScenarioError,
    Screenshot,
    StructuredOutput,
    TimelineEvent,
    UserCommand,
    UserEdits,
    UserInputs,
    evaluate_assert,
)
from autocue.scenario.events import check_interpreter, handler, kind_key
from autocue.script.model import Script, ScriptedResponse, describe_step

if TYPE_CHECKING:
    from autocue.isolation import Sandbox
    from autocue.runner.llm import LlmRun

STARTUP_GRACE = 0.5
"""Seconds a program that printed nothing yet is given before the first event anyway."""
ANSWER_GRACE = 0.5
"""Seconds a program that showed nothing after the last input is given before the next event anyway."""
SCREEN_WAIT = 2.0
"""Seconds a failing screenshot or assert is looked at again while the program still writes."""
QUIT_GRACE = 2.0
"""Seconds a program the runner ends is given to exit after its quit input, counted from the last change
of its (masked) screen (one that draws its goodbye, as Gemini CLI does for a second, gets more), up to
``QUIT_LIMIT``."""
QUIT_LIMIT = 5.0
"""Seconds after the quit input at most, then the process group is stopped."""
TERM_GRACE = 1.0
"""Seconds between SIGTERM and SIGKILL of the process group of a program the runner ends."""
DEFAULT_QUIT = "<ctrl-d>"
"""The quit input of a program whose launch profile has none (a command, the mock agent): EOF in cooked mode."""


class _Deadline(Exception):
    def __init__(self, where: str = "") -> None:
        super().__init__(where)
        self.where = where
        """What the executor was waiting for, when more than the event's sync."""


class _Mismatch(_Deadline):
    """``--match strict`` refused a request: the program will not get the replies it waits for, so the run ends
    now (the server's error names the differing fields and is reported with the run's LLM failures)."""


class _SetupFailed(Exception):
    """The run cannot start: a ``setup`` failure at ``position`` (None: the scenario's)."""

    def __init__(self, message: str, position: str | None = None) -> None:
        super().__init__(message)
        self.position = position


def replies_before(scenario: Scenario, choice: Choice, played: Script | None = None) -> list[int]:
    """For each timeline event, then for the end of the timeline (one more item: every reply), how many
    replies the program must have been served before it (counted on the script the server plays, when
    it differs from the scenario's: aider's one reply per turn)."""
    if choice.profile == "mock":
        out: list[int] = []
        n = 0
        for ev in scenario.timeline:
            out.append(n)
            n += isinstance(ev, LlmResponse)
        return [*out, n]
    script = played if played is not None else scenario.compile()
    replies = [s for s in script.all_steps() if isinstance(s, ScriptedResponse)]
    lines = sorted(r.pos.line if r.pos is not None else 0 for r in replies)  # replies written above the event
    return [*(bisect_left(lines, ev.pos.line) for ev in scenario.timeline), len(lines)]


class Execution:
    def __init__(self, scenario: Scenario, extras: RunnerExtras, options: RunOptions,
                 stop: Interrupt | None = None) -> None:
        self.sc = scenario
        self.stop = stop
        """The interrupt of ``autocue run`` (SIGINT, SIGTERM): its waits raise ``Interrupted``."""
        self.interrupted = False
        self.extras = extras
        self.opt = options
        self.result = ScenarioResult(scenario.name, scenario.file, warnings=[str(w) for w in scenario.warnings])
        self.prog: PtyProgram | None = None
        self.llm: LlmRun | None = None
        self.progress_file: Path | None = None
        self.progress_seen = 0
        self.progress_done = 0
        self.served_seen = 0
        self.settle = 0.08
        self.last_poll = 0.0
        self.ws = Path()
        self.root: Path | None = None
        """The run's private folder: the workspace and the program's state."""
        self.deadline = 0.0
        self.literals: list[tuple[str, str]] = []
        self.stderr_file: Path | None = None
        self.session_logs: str | None = None
        self.key_gap = 0.0
        self.quit_input = ""
        """A launch profile's input that quits its TUI: what ``<quit>`` types."""
        self.ready = ""
        """A launch profile's text on screen once its input box takes keys (empty: none)."""
        self.ready_waited = False
        """True once the first input waited for ``ready``: later inputs do not."""
        self.choice_image = ""
        """The launch profile's container image (``AgentProfile.image``), for a container sandbox."""
        self.box: Sandbox | None = None
        """The run's sandbox (``--sandbox``; ``none``: a local process with the refusing proxy)."""

    # ------------------------------------------------------------------ the run
    def run(self) -> ScenarioResult:
        t0 = time.monotonic()
        self.deadline = t0 + self.opt.timeout
        r = self.result
        self.otel = telemetry.start_run(self.sc.name, self.sc.file)  # None unless --otel
        try:
            self._execute()
        except _SetupFailed as e:
            r.fail("setup", str(e), e.position or str(self.sc.pos))
        except OSError as e:  # the machine, not the scenario: out of ptys, a full disk, ...
            r.fail("setup", f"{type(e).__name__}: {e}", str(self.sc.pos))
        except Interrupted:  # cleaned up below like any run, then it stops the others
            self.interrupted = True
            raise
        finally:
            self._clean_up()
            r.duration_s = time.monotonic() - t0
            if suite_coverage.COLLECTOR is not None:
                self._cover_own_replies(suite_coverage.COLLECTOR)
            if self.otel is not None:
                self.otel.end(runner=r.runner, failures=[(f.kind, f.message) for f in r.failures],
                              interrupted=self.interrupted)
                self.otel.close()
        return r

    def _cover_own_replies(self, cov: suite_coverage.Collector) -> None:
        """Suite coverage of the replies a program played itself (the mock agent: no server session saw
        them), from the progress it reported."""
        if self.llm is not None or self.progress_file is None:
            return
        self._read_progress()
        steps = [{"at": s.source if isinstance(s, ScriptedResponse) else None, "step": describe_step(s)}
                 for turn in self.sc.compile().turns for s in turn.steps]
        rec = cov.session(f"mock agent: {self.sc.name}", self.sc.name, self.sc.file, steps)
        rec.request((), None, (), None)
        rec.served.update(range(min(self.progress_done, len(steps))))

    def _execute(self) -> None:
        """Set up, start the program, play the timeline, check the end (a set-up problem raises ``_SetupFailed``)."""
        try:
            terminal = terminal_profile(self.sc, self.opt.terminal)
            choice = choose(self.sc, self.extras, cmd=self.opt.cmd, agent=self.opt.agent,
                            agent_args=self.opt.agent_args, agents_files=self.opt.agents_files,
                            default_cmd=self.opt.default_cmd, default_agent=self.opt.default_agent,
                            flags=self.opt.flags)
        except ScenarioError as e:
            raise _SetupFailed(e.message, str(e.pos)) from None
        except LaunchError as e:
            raise _SetupFailed(str(e)) from None
        self.result.runner, self.result.terminal = choice.runner, terminal.id
        self.settle = self.opt.settle if self.opt.settle is not None else choice.settle
        self.key_gap = choice.key_gap
        self.quit_input = choice.agent.quit_input if choice.agent is not None else ""
        tui = choice.agent is not None and interactive(self.sc)  # print mode shows no input box
        self.ready = choice.agent.ready if choice.agent is not None and tui else ""
        run_dir = self._prepare(choice, terminal)
        self.choice_image = choice.agent.image if choice.agent is not None else ""
        launch = self._launch(choice, terminal)
        if self.opt.via == "acp":  # the runner is the agent's ACP client: its own driver plays the timeline
            from autocue.runner.acp_client import drive

            launch.env = telemetry.agent_env(launch.env, self.otel)
            self._open_box()  # the ACP server and the terminals it asks for run in the run's sandbox
            drive(self, launch, choice, run_dir, replies_before(self.sc, choice, self.llm.script if self.llm else None))
            return
        self._start(launch, choice, terminal, run_dir)
        typed = launch.type_prompt is None or self._type_prompt(launch.type_prompt, choice)
        played = self.llm.script if self.llm is not None else None
        before = replies_before(self.sc, choice, played)
        if typed and self._timeline(before):
            self._finish(before[-1])

    def _prepare(self, choice: Choice, terminal: TerminalProfile) -> Path:
        """The run's output folder (returned), the golden folders and the seeded workspace."""
        base = self.opt.out.resolve() / choice.runner / safe_name(self.sc.name) / safe_name(terminal.id)
        base.mkdir(parents=True, exist_ok=True)
        run_dir = Path(tempfile.mkdtemp(prefix=f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-", dir=base))
        self.result.out_dir = str(run_dir)
        self.goldens = golden_dir(self.sc.file, choice.runner, self.sc.name, terminal.id)
        self.actuals = run_dir / "screenshots"
        self.root = Path(tempfile.mkdtemp(prefix="autocue-run-"))
        self.ws = self.root / "work"
        self.ws.mkdir()
        self.literals = [(str(self.ws.resolve()), "<workspace>"), (str(self.ws), "<workspace>"),
                         (str(run_dir), "<out>")]
        try:
            seed_workspace(self.sc, self.ws)
        except (WorkspaceError, OSError) as e:
            raise _SetupFailed(f"workspace: {e}") from None
        return run_dir

    def _launch(self, choice: Choice, terminal: TerminalProfile) -> Launch:
        """The mock LLM server's session (when the program uses it) and the program's command line."""
        assert self.root is not None
        if choice.uses_server:
            from autocue.runner.llm import register

            tools = choice.agent.tool_profile if choice.agent is not None and choice.profile is None else None
            self.llm = register(self.sc, script_for(choice, self.sc.compile(), self.ws), tool_profile=tools,
                                match=self.opt.match)
            self.llm.server.state.options.speed = self.opt.speed
            telemetry.bind(self.llm.key, self.otel)  # the run's requests are children of its span
        try:
            launch = build(choice, self.sc, terminal=terminal, workspace=self.ws, state_dir=self.root, llm=self.llm,
                           llm_api=self.opt.llm_api, via=self.opt.via, sandboxed=self.opt.sandbox != "none")
        except LaunchError as e:
            raise _SetupFailed(str(e)) from None
        self.progress_file = launch.progress_file
        self.stderr_file = launch.stderr_file
        self.session_logs = launch.session_logs
        return launch

    def _start(self, launch: Launch, choice: Choice, terminal: TerminalProfile, run_dir: Path) -> None:
        """The program in its pseudo-terminal, recorded to ``session.cast``."""
        cast = CastWriter(run_dir / "session.cast", terminal.width, terminal.height, title=self.sc.name)
        masks, literals = self.extras.masks, self.literals
        launch.env = telemetry.agent_env(launch.env, self.otel)  # TRACEPARENT: an instrumented agent joins the trace
        argv, env = self._sandboxed(launch, cast)
        try:
            self.prog = PtyProgram(argv, cwd=self.ws, env=env, width=terminal.width,
                                   height=terminal.height, cast=cast, stop=self.stop,
                                   settle_view=(lambda t: apply_masks(t, masks, literals)) if masks else None)
        except SpawnError as e:
            cast.close()
            raise _SetupFailed(f"{e} (the program under test, {choice.runner})") from None

    def _open_box(self) -> Sandbox:
        """The run's sandbox, started (``--sandbox``; ``none``: local processes with the refusing proxy)."""
        from autocue.isolation import IsolationError, SandboxSpec, find

        assert self.root is not None
        port = self.llm.server.port if self.llm is not None else None
        try:
            image = self.opt.sandbox_image or (self.choice_image or None)
            self.box = find(self.opt.sandbox).start(SandboxSpec(self.ws, self.root, port, image))
        except IsolationError as e:
            raise _SetupFailed(str(e)) from None
        self.result.sandbox = self.opt.sandbox
        return self.box

    def _sandboxed(self, launch: Launch, cast: CastWriter) -> tuple[list[str], dict[str, str]]:
        """The program's command line and environment in the run's sandbox (``autocue.isolation``)."""
        try:
            box = self._open_box()
        except _SetupFailed:
            cast.close()
            raise
        w = box.command(launch.argv, launch.env, self.ws, terminal=True)
        return w.argv, w.env

    def _clean_up(self) -> None:
        """Stop the program, read the last progress, release the server's session, drop the workspace
        (kept with ``keep`` or a failure; an interrupted run only with ``keep``)."""
        r = self.result
        if self.prog is not None:
            if self.interrupted and not self.prog.exited:  # the runner's end policy: SIGTERM, TERM_GRACE, SIGKILL
                self.prog.kill_group(TERM_GRACE)
            self.prog.close()
            r.program_s = (self.prog.ended or time.monotonic()) - self.prog.started
            r.last_screen = self.prog.last_screen()
            r.exit_code = self.prog.exit_code
        if self.box is not None:
            r.egress = [e.to_json() for e in self.box.egress()]
            self.box.close()
            self._check_egress()
        self._read_progress()
        if self.llm is not None:
            if r.runner not in ("", "mock", "autocue", "cmd"):  # a real agent CLI: diagnostics, side requests
                self._diagnose()
            self._save_requests()
            self.llm.release()
        if self.root is not None:
            if self.opt.keep or (r.failures and not self.interrupted):
                r.workspace = str(self.ws)
                if self.interrupted and self.stop is not None:
                    self.stop.kept.append(r.workspace)
            else:
                shutil.rmtree(self.root, ignore_errors=True)

    def _save_requests(self) -> None:
        """The model requests of the run (the server session's journal; the body of the last answered
        request only, which holds the whole history) as the run folder's ``requests.json``: what
        ``autocue export --atif RUN_DIR`` reads."""
        assert self.llm is not None
        if not self.result.out_dir:
            return
        try:
            saved = {"scenario": str(Path(self.sc.file).resolve()), "name": self.sc.name,
                     "sessions": [self.llm.handle.trace()]}
            (Path(self.result.out_dir) / "requests.json").write_text(json.dumps(saved, default=str), "utf-8")
        except OSError as e:
            print(f"autocue run: could not write requests.json: {e}", file=sys.stderr)

    def _check_egress(self) -> None:
        """``expect: {egress: none}``: any attempt to reach another host than the mock server fails the run."""
        expect, r = self.sc.expect, self.result
        if expect is None or expect.egress != "none" or not r.egress:
            return
        tried = ", ".join(f"{e['destination']} ({e['count']}x)" for e in r.egress)
        r.fail("egress", f"the program tried to reach hosts other than the mock server: {tried}", str(expect.pos or ""))

    def _type_prompt(self, prompt: str, choice: Choice) -> bool:
        """A real agent's TUI: wait for its input box (``ready`` text, else a quiet screen), then type the
        initial prompt and Enter as separate writes. False when the time limit ended the run."""
        p = self.prog
        assert p is not None
        ready = self.ready
        try:
            self._quiet()
            self._await_ready(str(self.sc.pos), "initialPrompt")
            p.cast.marker("initialPrompt")
            self._type(prompt, after_input=False)
            self.result.transcript.append(f"{self.sc.pos} initialPrompt: typed {prompt!r}")
        except _Deadline:
            self._timeout(f"waiting for the agent's input ({ready!r} on screen) to type the initial prompt",
                          str(self.sc.pos))
            return False
        return True

    def _await_ready(self, position: str, what: str) -> None:
        """Before the first key typed into the program: wait for the profile's ``ready`` text (its input
        box), then for a quiet screen. Later inputs do not wait for it (see the module's docstring)."""
        p = self.prog
        assert p is not None
        if self.ready_waited:
            return
        self.ready_waited = True
        if not self.ready or self.ready in p.screen.text():
            return
        t0 = time.monotonic()
        while self.ready not in p.screen.text() and not p.exited:
            if time.monotonic() > self.deadline:
                raise _Deadline(f"waiting for the program's input ({self.ready!r} on screen)")
            p.pump(0.05)
        self._quiet()
        self.result.transcript.append(f"{position} {what}: waited {time.monotonic() - t0:.1f} s for "
                                      f"{self.ready!r} on screen before the first key")

    def _type(self, text: str, *, after_input: bool) -> None:
        """Type ``text``: each chunk (text or one key) a write of its own, after a quiet screen (and
        ``key_gap`` before a key) when something was typed before it."""
        p = self.prog
        assert p is not None
        for chunk in parse_input(text):
            if after_input:
                self._quiet()
                if chunk.key:
                    self._gap()
            after_input = True
            p.write(key_bytes(chunk.key, app_cursor=p.screen.app_cursor_keys) if chunk.key else chunk.data)

    def _gap(self) -> None:
        """A real agent's TUI: the key after a text waits ``key_gap`` seconds from the last write."""
        p = self.prog
        assert p is not None
        while (left := p.last_input + self.key_gap - time.monotonic()) > 0:
            if time.monotonic() > self.deadline:
                raise _Deadline
            p.pump(left)

    def _diagnose(self) -> None:
        from autocue.runner.diagnose import diagnose, side_requests, tool_failures

        assert self.llm is not None
        st = self.llm.handle.status()  # the session as the admin API shows it: the diagnostics read its journal
        r = self.result
        if st is not None:
            r.side_requests = side_requests(st)
        failed_calls = tool_failures(self.session_logs)
        for f in failed_calls:
            if f.unrunnable:  # the run tested the machine, not the agent: never a pass
                r.fail("tool_result", f"{r.runner} could not run a tool call, its sandbox failed on this machine: "
                       f"{f.describe()} (see 'Sandboxes and bubblewrap' in docs/agents.md)", str(self.sc.pos))
        if r.failures and not any(f.kind == "setup" for f in r.failures):
            r.diagnostics = diagnose(st, self.stderr_file, failed_calls, r.runner)

    # ------------------------------------------------------------------ timeline
    def _timeline(self, before: list[int]) -> bool:
        """Run the executor's events; False when the time limit ended the run (no end checks then)."""
        assert self.prog is not None
        reached: list[TimelineEvent] = []
        try:
            for i, ev in enumerate(self.sc.timeline):
                if isinstance(ev, LlmResponse):
                    reached.append(ev)
                    continue
                try:
                    self._sync(before[i])
                    self.prog.cast.marker(f"{ev.pos} {type(ev).__name__}")
                    reached.append(ev)
                    self._event(ev)
                except _Deadline as e:
                    self._timeout(f"at {type(ev).__name__} ({ev.pos})" + (f", {e.where}" if e.where else ""),
                                  str(ev.pos))
                    return False
            return True
        finally:
            if suite_coverage.COLLECTOR is not None:
                suite_coverage.COLLECTOR.timeline(kind_key(type(ev)) for ev in reached)

    def _sync(self, need: int) -> None:
        """Wait for the replies before an event to be served and the screen to be quiet."""
        p = self.prog
        assert p is not None
        settle = self.settle
        while True:
            now = time.monotonic()
            if now > self.deadline:
                raise _Deadline
            if p.exited:
                p.wait_exit(self.deadline)
                return
            if self.llm is not None and self.llm.handle.mismatch:
                raise _Mismatch("the program's request differs from the recorded one (--match strict)")
            served = self._served()
            if served != self.served_seen:
                # a reply went out: the program's answer to it is awaited like an echo. Output that
                # came after the reply was taken may be that answer; output before it (the echo of
                # what was typed) is not; without the server's time, the last look stands in for it.
                # The mock agent reports a reply once all it printed is written: nothing is to come.
                self.served_seen = served
                served_at = self.llm.handle.last_served_at if self.llm is not None else None
                if self.llm is not None and p.last_output <= (self.last_poll if served_at is None else served_at):
                    p.answered, p.last_input = False, now
            self.last_poll = now
            served_ok = served >= need
            started = p.output_seen or now - p.started >= STARTUP_GRACE
            answered = p.answered or now - p.last_input >= ANSWER_GRACE
            if (served_ok and started and answered and not p.screen.in_sync_update and now - p.last_change >= settle
                    and not p.busy()):
                return
            p.pump(settle if served_ok else 0.01)

    def _quiet(self) -> None:
        self._sync(0)

    def _served(self) -> int:
        if self.llm is not None:
            return self.llm.handle.served
        if self.progress_file is not None:
            self._read_progress()
            return self.progress_done
        return 0

    def _read_progress(self) -> None:
        f = self.progress_file
        if f is None:
            return
        try:
            with f.open("rb") as fh:
                fh.seek(self.progress_seen)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1
        self.progress_seen += end
        for line in data[:end].splitlines():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "done" in msg:
                self.progress_done = max(self.progress_done, int(msg["done"]))
            if "failure" in msg:
                fl = msg["failure"]
                self.result.fail(fl.get("kind", "tool_result"), str(fl.get("message", "")), str(fl.get("position", "")),
                                 str(fl.get("detail", "")))

    def _await_screen(self, ok: Callable[[str], bool], *, masked: bool) -> str:
        """Keep reading the program for up to ``SCREEN_WAIT`` seconds while ``ok(screen)`` is false
        (a check that fails at once is looked at again as output arrives: a loaded machine may
        draw later than the quiet window); the screen as it was last seen."""
        p = self.prog
        assert p is not None
        end = min(time.monotonic() + SCREEN_WAIT, self.deadline)

        def current() -> str:
            return apply_masks(self._screen(), self.extras.masks if masked else (), self.literals)

        screen = current()
        while not ok(screen) and time.monotonic() < end and not p.exited:
            if p.pump(0.05):
                screen = current()
        return current()

    def _screen(self) -> str:
        assert self.prog is not None
        return self.prog.screen.text()

    def _note(self, ev: TimelineEvent, what: str) -> None:
        self.result.transcript.append(f"{ev.pos} {type(ev).__name__}: {what}")

    def _logical(self, ms: int) -> None:
        if self.opt.speed > 0 and ms > 0 and self.prog is not None:
            end = time.monotonic() + ms / 1000 * self.opt.speed
            if end > self.deadline:
                raise _Deadline
            while time.monotonic() < end:
                self.prog.pump(min(0.05, max(0.0, end - time.monotonic())))

    def _event(self, ev: TimelineEvent) -> None:
        assert self.prog is not None
        handle = handler(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED, ev)
        if handle is None:
            self._note(ev, "not executed by the runner")
        else:
            handle(self, ev)

    def _user_inputs(self, ev: UserInputs) -> None:
        typed = False
        for inp in ev.inputs:
            target = inp.target or ev.target
            if target not in (None, "tui", "cli"):
                self._note(ev, f"skipped {inp.text!r} (target {target})")
                continue
            self._logical(inp.ms)
            if not typed:
                self._await_ready(str(ev.pos), type(ev).__name__)
            text = self.quit_input if inp.text.strip().lower() == "<quit>" and self.quit_input else inp.text
            self._type(text, after_input=typed)
            typed = True  # parse_input gives at least one chunk
            self._note(ev, f"typed {inp.text!r}")

    def _advance(self, ev: AdvanceMs) -> None:
        self._logical(ev.ms)

    def _screenshot(self, ev: Screenshot) -> None:
        r = self.result
        screen = apply_masks(self._screen(), self.extras.masks, self.literals)
        want = None if self.opt.update_goldens else existing_golden(ev.label, self.goldens)
        if want is not None and screen + "\n" != want:  # a slow program may still be drawing it
            screen = self._await_screen(lambda s: s + "\n" == want, masked=True)
        g = check_golden(ev.label, screen, golden_dir=self.goldens, actual_dir=self.actuals,
                         update=self.opt.update_goldens, ci=self.opt.ci)
        r.screenshots[ev.label] = str(g.path)
        r.goldens.append(g)
        self._note(ev, f"{ev.label}: {g.status}")
        if g.status == "differs":
            r.fail("golden", f"screenshot {ev.label!r} differs from its golden {g.golden} (actual screen: "
                   f"{g.actual}; rerun with {self.opt.flag('update_goldens')} to accept it)", str(ev.pos), g.diff)
        elif g.status == "missing":
            r.fail("golden", f"screenshot {ev.label!r} has no golden {g.golden} (CI mode: a missing golden "
                   f"fails; the screen is in {g.actual}): run the scenario locally with "
                   f"{self.opt.flag('update_goldens')} and commit the golden file", str(ev.pos), g.diff)

    def _assert(self, ev: AssertStep) -> None:
        r = self.result
        report = evaluate_assert(ev.spec, self.ws, text=apply_masks(self._screen(), (), self.literals))
        if not report.passed:  # a slow program may still be drawing or writing what is checked
            self._await_screen(lambda s: evaluate_assert(ev.spec, self.ws, text=s).passed, masked=False)
            report = evaluate_assert(ev.spec, self.ws, text=apply_masks(self._screen(), (), self.literals))
        for res in report.failed:
            r.fail("assert", f"{res.check}: expected {res.expected!r}, got {res.actual!r} "
                   f"(workspace {self.ws})", str(ev.pos), self._screen())
        self._note(ev, "passed" if report.passed else f"{len(report.failed)} check(s) failed")

    def _user_edits(self, ev: UserEdits) -> None:
        patch = Path(self.sc.file).resolve().parent / ev.patch  # an absolute ev.patch stays as it is
        if not patch.is_file():
            self.result.fail("setup", f"userEdits patch {ev.patch!r}: no such file ({patch})", str(ev.pos))
            return
        with self._side_command() as on_start:
            proc = capture_sync(["git", "apply", "--whitespace=nowarn", str(patch)], cwd=str(self.ws),
                                timeout=max(1.0, self.deadline - time.monotonic()), end_group=True,
                                on_start=on_start)
        if proc.stopped == "timeout":
            raise _Deadline
        if proc.code != 0:
            self.result.fail("setup", f"userEdits patch {ev.patch!r} does not apply to the workspace {self.ws}: "
                             f"{proc.stderr.strip() or proc.stdout.strip()}", str(ev.pos))
        else:
            self._note(ev, f"applied {ev.patch}")

    def _user_command(self, ev: UserCommand) -> None:
        """Run ``ev.cmd`` with ``sh -c`` through the process runner: the scenario's deadline stops its whole
        group; a background child that keeps its output open delays the run by at most the runner's drain."""
        cwd = self.ws / ev.cwd if ev.cwd else self.ws
        try:
            with self._side_command() as on_start:
                proc = capture_sync(["sh", "-c", ev.cmd], cwd=str(cwd),
                                    timeout=max(0.1, self.deadline - time.monotonic()), on_start=on_start)
        except OSError as e:
            self.result.fail("setup", f"userCommand {ev.cmd!r}: {e}", str(ev.pos))
            return
        if proc.stopped == "timeout":
            raise _Deadline
        out = (proc.stdout + proc.stderr).rstrip()
        self._note(ev, f"$ {ev.cmd} -> exit {proc.code}" + (f"\n{out}" if out else ""))
        if self.result.out_dir:
            log = Path(self.result.out_dir) / "commands.log"
            with log.open("a", encoding="utf-8") as f:
                f.write(f"$ {ev.cmd}  (exit {proc.code})\n{out}\n")

    @contextlib.contextmanager
    def _side_command(self) -> Iterator[Callable[[int], None] | None]:
        """The ``on_start`` of a command the executor runs to its end (``userCommand``, ``git apply``): an
        interrupt kills its group (no pump waits on it); ``Interrupted`` once it returned."""
        stop = self.stop
        if stop is None:
            yield None
            return
        pids: list[int] = []

        def started(pid: int) -> None:
            pids.append(pid)
            stop.started(pid)

        try:
            yield started
        finally:
            for pid in pids:
                stop.ended(pid)
        stop.check()

    # ------------------------------------------------------------------ the end
    def _timeout(self, where: str, position: str) -> None:
        p = self.prog
        assert p is not None
        p.kill_group()
        if self.llm is not None and self.llm.handle.mismatch:  # not a timeout: the refused request is the failure
            self.result.fail("llm", f"autocue mock LLM (--match strict): {self.llm.handle.mismatch}; the run ended "
                             "there (--match loose serves it anyway)", position, p.last_screen())
            return
        self.result.fail("timeout", f"the scenario did not finish within {self.opt.timeout:g} s ({where}); the "
                         "program's process group was killed", position, p.last_screen())

    def _finish(self, replies: int) -> None:
        """The end of the timeline: the program's exit (or the runner ends it), then ``expect`` and the
        scripted replies. ``replies``: how many the whole timeline scripts."""
        p = self.prog
        assert p is not None
        r = self.result
        expect = self.sc.expect
        if expect is not None and expect.exit_code is not None:
            if not p.wait_exit(self.deadline):
                self._timeout("the program was still running after the timeline's last event, and expect.exitCode "
                              "says it exits by itself: end the timeline with the input that quits it (`<quit>`, the "
                              "launch profile's; `<ctrl-d>`, `/quit`), or drop expect.exitCode to let the runner end "
                              "it", str(self.sc.pos))
                return
        else:
            try:
                self._sync(replies)  # every reply served and the answer drawn: an agent still answering is not cut off
            except _Deadline:
                self._timeout(f"after the timeline's last event, waiting for the program to ask for its scripted "
                              f"replies: {self._served()} of {replies} served", str(self.sc.pos))
                self._check_replies()
                return
            if not p.exited:
                self._end_program()
        if expect is not None and expect.exit_code is not None and p.exit_code != expect.exit_code:
            r.fail("exit_code", f"the program exited with {p.exit_code}, expected {expect.exit_code}",
                   str(self.sc.pos), p.screen.text())
        for a in expect.artifacts if expect is not None else []:
            if (missing := missing_artifact(self.ws, a)) is not None:
                r.fail("artifact", missing, str(self.sc.pos))
        self._check_replies()

    def _end_program(self) -> None:
        """The timeline is done and the program still runs (no ``expect.exitCode``): type its quit input,
        let it exit (``_wait_quit``), else stop its process group (SIGTERM, then SIGKILL)."""
        p = self.prog
        assert p is not None
        quit_input = self.quit_input or DEFAULT_QUIT
        p.screen_at_kill = p.screen.text()  # the last screen is the timeline's, not the one the program leaves
        p.cast.marker("end of the timeline: the runner ends the program")
        t0 = time.monotonic()
        with contextlib.suppress(_Deadline):  # past the deadline: no quiet wait between keys, straight to the stop
            self._type(quit_input, after_input=False)
        if self._wait_quit():
            how = "quit input"
            took = time.monotonic() - t0
            what = f"typed its quit input {quit_input!r}: it exited with {p.exit_code} after {took:.1f} s"
        else:
            p.kill_group(TERM_GRACE)
            how = "SIGKILL" if p.exit_code == 128 + signal.SIGKILL else "SIGTERM"
            what = (f"typed its quit input {quit_input!r}; it still ran {time.monotonic() - t0:.1f} s later: its "
                    f"process group was stopped ({'SIGTERM, then SIGKILL' if how == 'SIGKILL' else 'SIGTERM'})")
        self.result.ended_by_runner = how
        self.result.transcript.append(f"{self.sc.pos} end: the timeline is done and the program still ran "
                                      f"(no expect.exitCode): ended by the runner: {what}")

    def _wait_quit(self) -> bool:
        """After the quit input: True once the program exited, False when it was quiet for ``QUIT_GRACE``
        seconds (or ``QUIT_LIMIT`` passed) still running."""
        p = self.prog
        assert p is not None
        limit = time.monotonic() + QUIT_LIMIT
        while True:
            until = min(limit, max(p.last_input, p.last_change) + QUIT_GRACE)
            if p.wait_exit(until):
                return True
            if time.monotonic() >= min(limit, max(p.last_input, p.last_change) + QUIT_GRACE):
                return False

    def _check_replies(self) -> None:
        """The scripted replies: every one played, no error of the server's session."""
        r = self.result
        if self.llm is not None:
            run = self.llm.handle
            if run.started:
                if run.remaining:
                    r.fail("llm", f"the program left {run.remaining} of {run.total} scripted replies unplayed "
                           f"(next: {run.next_step})", str(self.sc.pos))
                for e in run.errors:
                    r.fail("llm", str(e), str(self.sc.pos))
            elif self.llm.script.step_count:
                r.fail("llm", f"the program never called the mock LLM server ({self.llm.script.step_count} replies "
                       "scripted)", str(self.sc.pos))


TIMELINE_HANDLERS: dict[type, Callable[[Execution, Any], None]] = {
    UserInputs: Execution._user_inputs, AdvanceMs: Execution._advance, Screenshot: Execution._screenshot,
    AssertStep: Execution._assert, UserEdits: Execution._user_edits, UserCommand: Execution._user_command,
}
TIMELINE_IGNORED: dict[type, str] = {
    LlmResponse: "played by the program's side (the mock LLM server, or the mock agent itself)",
    CallEveryTool: "played by the mock LLM server from the request's declared tools",
    StructuredOutput: "played by the mock LLM server from the request's response schema",
    ExpectRequestStep: "checked by the mock LLM server on the request for the next reply",
    Complete: "a status for simulation runners", Merge: "a status for simulation runners",
    RunnerEvent: "an event for other runners, kept as written",
}
check_interpreter(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED)
