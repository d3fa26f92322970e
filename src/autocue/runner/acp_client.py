"""Drive an agent over the Agent Client Protocol (``autocue run --via acp``): the runner is its client.

The agent's ACP server (its launch profile's ``acp`` entry, wired to the embedded mock LLM server with
the same env and files as print and TUI runs) starts in its own process group with pipes for stdio.
The runner talks to it with the official ``agent-client-protocol`` package (``ClientSideConnection``):
``initialize`` (client capabilities: ``fs`` read and write, ``terminal``), ``session/new`` in the
workspace (with the scenario's ``acp.mcpServers``), then the timeline:

- ``initialPrompt`` and each ``userInputs`` text are one ``session/prompt`` each (key tokens such as
  ``<enter>`` are dropped; ``<quit>`` ends the session); a prompt waits for the one before to end.
- before every other event the runner syncs: the replies written above it served by the mock server,
  and the agent quiet (no message) for the settle time, or its prompt over.
- ``assert`` checks the workspace, ``text`` on the text the agent streamed, and ``acp:`` checks
  (``autocue.runner.acp_client_checks``) on the messages so far; ``agentPermissionRequest: allow |
  deny | OPTION_ID`` answers the next permission request; ``userCancelSession`` sends
  ``session/cancel``; ``userCommand`` / ``userEdits`` run as in other runs; a ``screenshot`` has no
  screen to take.
- permission requests, ``fs/*`` and ``terminal/*`` calls are answered for real (``acp_client_host``).

Every message, both ways, goes to ``acp.jsonl`` in the run's folder (``acp_client_log``). The end: the
last prompt over, ``expect`` (``exitCode`` when the agent exits by itself once its stdin is closed,
``artifacts``, ``acp:`` checks), every scripted reply played. The agent is ended by closing its stdin,
then the stop policy (SIGTERM to its group, SIGKILL after a grace). Faults fail the run with one line
naming the last ACP message and the scenario position: the agent exits, writes a line that is not a
JSON-RPC message, answers a request with an error, or the scenario's timeout passes (its group killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.client.connection import ClientSideConnection
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AcpMcpServer,
    ClientCapabilities,
    EnvVariable,
    FileSystemCapabilities,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
    SseMcpServer,
)

from autocue.process import Child, exit_future
from autocue.runner.acp_client_checks import check, seen, validate
from autocue.runner.acp_client_host import Host, client_for, policy_of
from autocue.runner.acp_client_log import LOG_NAME, AcpLog, malformed
from autocue.runner.errors import AcpSpecError
from autocue.runner.keys import parse_input
from autocue.scenario import (
    AdvanceMs,
    AssertStep,
    CallEveryTool,
    Complete,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    RunnerEvent,
    Screenshot,
    StructuredOutput,
    UserCommand,
    UserEdits,
    UserInputs,
    evaluate_assert,
)
from autocue.scenario.events import check_interpreter, handler

if TYPE_CHECKING:
    from autocue.isolation import Sandbox
    from autocue.runner.launch import Choice, Launch
    from autocue.runner.llm import LlmRun
    from autocue.runner.options import RunOptions
    from autocue.runner.report import ScenarioResult
    from autocue.scenario import Scenario, TimelineEvent


class Execution(Protocol):
    """What the ACP driver uses of the executor's run (``autocue.runner.executor.Execution``)."""

    sc: Scenario
    ws: Path
    result: ScenarioResult
    opt: RunOptions
    deadline: float
    settle: float
    llm: LlmRun | None
    box: Sandbox | None

    def _served(self) -> int: ...
    def _note(self, ev: TimelineEvent, what: str) -> None: ...
    def _user_command(self, ev: UserCommand) -> None: ...
    def _user_edits(self, ev: UserEdits) -> None: ...
    def _check_replies(self) -> None: ...

STREAM_LIMIT = 50 * 1024 * 1024
"""Bytes of one JSON-RPC line at most (the library's default for stdio)."""
EXIT_GRACE = 2.0
"""Seconds the agent is given to exit once its stdin is closed, before SIGTERM."""
TERM_GRACE = 1.0
ASSERT_WAIT = 2.0
"""Seconds a failing ``assert`` is evaluated again while a prompt is still running."""


class _Fault(Exception):
    """The agent broke the session (exited, malformed line, an error answer): one line."""


class AcpDriver:
    def __init__(self, ex: Execution, launch: Launch, choice: Choice, run_dir: Path, before: list[int]) -> None:
        self.ex = ex
        self.before = before
        """For each timeline event, then for the end, how many replies are served before it (``replies_before``)."""
        self.launch = launch
        self.choice = choice
        self.log = AcpLog(run_dir / LOG_NAME)
        self.position = str(ex.sc.pos)
        self.doing = "starting the agent"
        self.child: Child | None = None
        self.exited: asyncio.Future[int] | None = None
        self.conn: ClientSideConnection | None = None
        self.session = ""
        self.prompt_task: asyncio.Task[None] | None = None
        self.fault: asyncio.Future[str] | None = None
        self.closing = False
        self.quit = False
        self.prompting = ""
        """The prompt running now, as messages name it."""
        default, tools = "allow", dict[str, str]()
        acp = ex.sc.acp or {}
        try:
            default, tools = policy_of(acp.get("permissions"))
        except AcpSpecError as e:
            self.setup_error: str | None = str(e)
        else:
            self.setup_error = None
        self.host = Host(ex.ws, dict(launch.env), default, tools)
        if ex.box is not None:  # the run's sandbox starts the agent and the terminals it asks for
            self.host.spawn = ex.box.exec

    # ------------------------------------------------------------------ the run
    async def run(self) -> None:
        r = self.ex.result
        loop = asyncio.get_running_loop()
        self.fault = loop.create_future()
        try:
            self.child = self.host.spawn(self.launch.argv, cwd=self.ex.ws, env=self.launch.env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as e:
            r.fail("setup", f"{e} (the ACP server of {self.choice.runner}: {self.launch.argv[0]})", str(self.ex.sc.pos))
            return
        self.exited = exit_future(self.child.proc, loop)
        t_start = time.monotonic()
        main = asyncio.ensure_future(self._session())
        watch = asyncio.ensure_future(self._watch_exit())
        try:
            waits: set[asyncio.Future[Any]] = {main, self.fault}
            done, _ = await asyncio.wait(waits, timeout=max(0.0, self.ex.deadline - time.monotonic()),
                                         return_when=asyncio.FIRST_COMPLETED)
            if self.fault.done():
                r.fail("acp", self.fault.result(), self.position)
            elif main in done:
                exc = main.exception()
                if isinstance(exc, _Fault):
                    r.fail("acp", str(exc), self.position)
                elif exc is not None:
                    raise exc
            else:
                r.fail("timeout", f"the scenario did not finish within {self.ex.opt.timeout:g} s ({self.doing}; "
                       f"last ACP message: {self.log.name()}); the agent's process group was killed", self.position)
        finally:
            kill = bool(r.failures) and not main.done()
            for t in (main, watch, self.prompt_task):
                if t is not None and not t.done():
                    t.cancel()
                    with contextlib.suppress(BaseException):
                        await t
            await self._stop(kill=kill)
            await self.host.close()
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.conn.close(), 2.0)
            self.log.close()
            r.program_s = time.monotonic() - t_start
            s = seen(self.log.entries, self.ex.ws)
            r.last_screen = s.text[-4000:]
            for a in self.host.answered:
                r.transcript.append(f"permission: {a}")

    async def _watch_exit(self) -> None:
        assert self.exited is not None and self.fault is not None
        code = await asyncio.shield(self.exited)
        await asyncio.sleep(0.05)  # its last lines first
        if not self.closing and not self.fault.done():
            self.fault.set_result(f"the agent exited with {code} while {self.doing} (last ACP message: "
                                  f"{self.log.name()})")

    async def _pump(self, raw: asyncio.StreamReader, lib: asyncio.StreamReader) -> None:
        """The agent's stdout: each line recorded, checked, then given to the connection."""
        assert self.fault is not None
        while True:
            try:
                line = await raw.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                line = e.partial
            except asyncio.LimitOverrunError:
                line = await raw.read(STREAM_LIMIT)
            if not line:
                lib.feed_eof()
                return
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                msg: Any = json.loads(text)
                why = malformed(msg)
            except json.JSONDecodeError as e:
                msg, why = None, f"not JSON ({e.msg})"
            except ValueError as e:
                msg, why = None, f"not JSON ({e})"
            if why is not None:
                i = self.log.add("in", raw=text, error=why)
                if not self.fault.done():
                    before = self.log.name(i - 1) if i else "none"
                    self.fault.set_result(f"the agent wrote a line that is not a JSON-RPC message ({why}: "
                                          f"{text[:80]!r}, {LOG_NAME} #{i}) while {self.doing} (last message "
                                          f"before it: {before})")
                continue
            self.log.add("in", msg)
            lib.feed_data(line if line.endswith(b"\n") else line + b"\n")

    def _outgoing(self, event: StreamEvent) -> None:
        if event.direction == StreamDirection.OUTGOING:
            self.log.add("out", event.message)

    async def _call(self, what: str, call: Awaitable[Any]) -> Any:
        """A request to the agent; its error answer (or a closed connection) is a ``_Fault``."""
        self.doing = what
        try:
            return await call
        except RequestError as e:
            raise _Fault(f"the agent answered {what} with error {e.code}: {e} ({self.log.name()})") from None
        except ConnectionError:
            assert self.fault is not None
            await asyncio.sleep(0.2)  # the exit watcher names the exit
            if self.fault.done():
                raise _Fault(self.fault.result()) from None
            raise _Fault(f"the agent closed its stdout while {what} (last ACP message: {self.log.name()})") from None

    async def _session(self) -> None:
        ex, sc = self.ex, self.ex.sc
        if self.setup_error is not None:
            raise _Fault(self.setup_error)
        self.specs: dict[int, dict[str, Any]] = {}
        for e in sc.timeline:
            if isinstance(e, AssertStep) and "acp" in e.spec.extra:
                try:
                    self.specs[id(e)] = validate(e.spec.extra["acp"])
                except AcpSpecError as err:
                    self.position = str(e.pos)
                    raise _Fault(f"{err}") from None
        try:
            end_spec = validate(sc.expect.acp) if sc.expect is not None and sc.expect.acp is not None else None
        except AcpSpecError as err:
            raise _Fault(f"expect.{err}") from None
        loop = asyncio.get_running_loop()
        proc = self.child.proc if self.child is not None else None
        assert proc is not None and proc.stdout is not None and proc.stdin is not None
        raw = asyncio.StreamReader(limit=STREAM_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw), proc.stdout)
        wt, wp = await loop.connect_write_pipe(lambda: asyncio.streams.FlowControlMixin(), proc.stdin)
        writer = asyncio.StreamWriter(wt, wp, None, loop)  # type: ignore[arg-type]
        self.writer = writer
        lib = asyncio.StreamReader(limit=STREAM_LIMIT)
        self.pump = asyncio.ensure_future(self._pump(raw, lib))
        self.conn = ClientSideConnection(client_for(self.host), writer, lib, observers=[self._outgoing])
        agent = self.choice.agent
        fs = agent is None or agent.acp is None or agent.acp.client_fs
        caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=True)
        from autocue import __version__

        await self._call("initialize", self.conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps,
                                                            client_info=Implementation(name="autocue",
                                                                                       version=__version__)))
        new = await self._call("session/new", self.conn.new_session(cwd=str(ex.ws.resolve()),
                                                                    mcp_servers=_mcp_servers(sc.acp or {})))
        self.session = new.session_id
        before = self.before
        if sc.initial_prompt:
            await self._prompt(sc.initial_prompt, str(sc.pos))
        for i, ev in enumerate(sc.timeline):
            if self.quit:
                break
            handle = handler(__name__, ACP_HANDLERS, ACP_IGNORED, ev)
            if handle is None:
                continue
            self.position = str(ev.pos)
            if not isinstance(ev, UserInputs | RunnerEvent):
                await self._sync(before[i], f"syncing before {type(ev).__name__}")
            await handle(self, ev)
        self.position = str(sc.pos)
        await self._sync(before[-1], f"after the timeline's last event, waiting for the scripted replies "
                                     f"({before[-1]} in all)")
        if self.prompt_task is not None:
            self.doing = f"waiting for {self.prompting} to end"
            await self.prompt_task
        await self._end(end_spec)

    async def _prompt(self, text: str, pos: str) -> None:
        if self.prompt_task is not None:
            self.doing = f"waiting for {self.prompting} to end before the next prompt"
            await self.prompt_task
        assert self.conn is not None
        conn, session = self.conn, self.session

        async def one() -> None:
            await self._call(f"session/prompt {text[:40]!r} (from {pos})",
                             conn.prompt(session_id=session, prompt=[text_block(text)]))

        self.doing = self.prompting = f"session/prompt {text[:40]!r} (from {pos})"
        self.prompt_task = asyncio.ensure_future(one())
        await asyncio.sleep(0)

    def _prompt_running(self) -> bool:
        if self.prompt_task is None or not self.prompt_task.done():
            return self.prompt_task is not None
        if (exc := self.prompt_task.exception()) is not None:
            raise exc
        return False

    async def _sync(self, replies: int, what: str) -> None:
        self.doing = what
        settle = self.ex.settle
        if self.ex.llm is None:  # an agent that plays its replies itself (`autocue acp-agent`): no count to wait for
            replies = 0
        while True:
            if self.ex.llm is not None and self.ex.llm.handle.mismatch:  # --match strict refused a request
                raise _Fault(f"autocue mock LLM (--match strict): {self.ex.llm.handle.mismatch}; the run ended there "
                             f"(--match loose serves it anyway; last ACP message: {self.log.name()})")
            served = self.ex._served()
            running = self._prompt_running()
            quiet = time.monotonic() - self.log.last_in >= settle
            if served >= replies and (not running or quiet):
                return
            await asyncio.sleep(0.02)

    # ------------------------------------------------------------------ events
    async def _user_inputs(self, ev: UserInputs) -> None:
        for inp in ev.inputs:
            target = inp.target or ev.target
            if target not in (None, "tui", "cli"):
                self.ex._note(ev, f"skipped {inp.text!r} (target {target})")
                continue
            if inp.text.strip().lower() == "<quit>":
                self.quit = True
                self.ex._note(ev, "<quit>: the session ends")
                return
            if inp.ms and self.ex.opt.speed > 0:
                await asyncio.sleep(inp.ms / 1000 * self.ex.opt.speed)
            text = "".join(c.data for c in parse_input(inp.text) if c.key is None).strip()
            if text:
                await self._prompt(text, str(ev.pos))
                self.ex._note(ev, f"session/prompt {text!r}")

    async def _assert(self, ev: AssertStep) -> None:
        spec = self.specs.get(id(ev))
        end = time.monotonic() + ASSERT_WAIT
        while True:
            text = seen(self.log.entries, self.ex.ws).text
            report = evaluate_assert(ev.spec, self.ex.ws, text=text)
            misses = check(spec, self.log.entries, self.ex.ws) if spec is not None else []
            if (report.passed and not misses) or time.monotonic() >= end or not self._prompt_running():
                break
            await asyncio.sleep(0.05)
        r = self.ex.result
        for res in report.failed:
            r.fail("assert", f"{res.check}: expected {res.expected!r}, got {res.actual!r} (workspace {self.ex.ws}; "
                   f"last ACP message: {self.log.name()})", str(ev.pos), text)
        for m in misses:
            r.fail("assert", f"{m.check}: expected {m.expected!r}, got {m.actual!r} "
                   f"({self.log.name(m.index) if m.index is not None else 'no ACP message yet'})", str(ev.pos))
        self.ex._note(ev, "passed" if report.passed and not misses else
                      f"{len(report.failed) + len(misses)} check(s) failed")

    async def _runner_event(self, ev: RunnerEvent) -> None:
        if ev.kind == "agentPermissionRequest":
            data = ev.data.get("answer", ev.data.get("outcome")) if isinstance(ev.data, dict) else ev.data
            self.host.queued.append((str(data), str(ev.pos)))
            self.ex._note(ev, f"the next permission request is answered {data!r}")
        elif ev.kind == "userCancelSession":
            assert self.conn is not None
            await self._sync(0, "before session/cancel")
            await self.conn.cancel(session_id=self.session)
            self.ex._note(ev, "session/cancel sent")
        else:
            self.ex._note(ev, f"{ev.kind}: not executed over ACP")

    async def _side(self, ev: UserCommand | UserEdits) -> None:
        self.doing = f"running {type(ev).__name__}"
        if isinstance(ev, UserCommand):
            await asyncio.to_thread(self.ex._user_command, ev)
        else:
            await asyncio.to_thread(self.ex._user_edits, ev)

    async def _advance(self, ev: AdvanceMs) -> None:
        if self.ex.opt.speed > 0:
            await asyncio.sleep(ev.ms / 1000 * self.ex.opt.speed)

    async def _screenshot(self, ev: Screenshot) -> None:
        self.ex._note(ev, f"{ev.label}: no screen over ACP (skipped)")

    # ------------------------------------------------------------------ the end
    async def _end(self, spec: dict[str, Any] | None) -> None:
        ex, r = self.ex, self.ex.result
        code = await self._stop()
        expect = ex.sc.expect
        if expect is not None and expect.exit_code is not None and code is not None and code != expect.exit_code:
            r.fail("exit_code", f"the agent exited with {code} once its stdin was closed, expected "
                   f"{expect.exit_code}", str(ex.sc.pos))
        for p in self.host.problems:
            r.fail("acp", p, str(ex.sc.pos))
        if spec is not None:
            for m in check(spec, self.log.entries, ex.ws):
                r.fail("assert", f"expect {m.check}: expected {m.expected!r}, got {m.actual!r} "
                       f"({self.log.name(m.index) if m.index is not None else 'no ACP message'})", str(ex.sc.pos))
        from autocue.runner.workspace import missing_artifact

        for a in expect.artifacts if expect is not None else []:
            if (missing := missing_artifact(ex.ws, a)) is not None:
                r.fail("artifact", missing, str(ex.sc.pos))
        ex._check_replies()

    async def _stop(self, *, kill: bool = False) -> int | None:
        """End the agent: stdin closed, ``EXIT_GRACE`` seconds, then SIGTERM / SIGKILL to its group (``kill``: its
        group SIGKILLed at once, after a fault or the timeout). Its exit code when it exited by itself (None: it
        had to be stopped)."""
        if self.child is None or self.exited is None:
            return None
        r = self.ex.result
        if self.exited.done():
            r.exit_code = self.exited.result()
            return r.exit_code if self.closing else None
        self.closing = True
        if kill:
            self.child.signal_group()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.exited), 2.0)
            r.ended_by_runner = "SIGKILL"
            r.exit_code = self.exited.result() if self.exited.done() else None
            return None
        with contextlib.suppress(Exception):
            if hasattr(self, "writer"):
                self.writer.close()
            elif self.child.proc.stdin is not None:
                self.child.proc.stdin.close()
        try:
            code: int | None = await asyncio.wait_for(asyncio.shield(self.exited), EXIT_GRACE)
            r.ended_by_runner = "stdin closed"
        except TimeoutError:
            await self.child.stop_async(TERM_GRACE, self.exited)
            code = None
            r.ended_by_runner = "SIGTERM"
        self.child.signal_group()  # whatever it left in its group
        r.exit_code = self.exited.result() if self.exited.done() else None
        r.transcript.append(f"{self.ex.sc.pos} end: the runner closed the agent's stdin "
                            f"({'it exited with ' + str(code) if code is not None else 'its group was stopped'})")
        return code


def _mcp_servers(acp: dict[str, Any]) -> list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio]:
    out: list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio] = []
    for s in acp.get("mcpServers") or []:
        if isinstance(s, dict):
            env = s.get("env") or {}
            out.append(McpServerStdio(name=str(s.get("name", "")), command=str(s.get("command", "")),
                                      args=[str(a) for a in s.get("args") or []],
                                      env=[EnvVariable(name=str(k), value=str(v)) for k, v in env.items()]))
    return out


def drive(ex: Execution, launch: Launch, choice: Choice, run_dir: Path, before: list[int]) -> None:
    """Play ``ex``'s scenario against ``launch`` (an ACP server) as its client; failures go to ``ex.result``.
    ``before``: the replies served before each timeline event, then in all (``executor.replies_before``)."""
    asyncio.run(AcpDriver(ex, launch, choice, run_dir, before).run())


ACP_HANDLERS: dict[type, Callable[[AcpDriver, Any], Awaitable[None]]] = {
    UserInputs: AcpDriver._user_inputs, AssertStep: AcpDriver._assert, RunnerEvent: AcpDriver._runner_event,
    UserCommand: AcpDriver._side, UserEdits: AcpDriver._side, AdvanceMs: AcpDriver._advance,
    Screenshot: AcpDriver._screenshot,
}
ACP_IGNORED: dict[type, str] = {
    LlmResponse: "played by the mock LLM server the agent calls",
    CallEveryTool: "played by the mock LLM server from the request's declared tools",
    StructuredOutput: "played by the mock LLM server from the request's response schema",
    ExpectRequestStep: "checked by the mock LLM server on the request for the next reply",
    Complete: "a status for simulation runners", Merge: "a status for simulation runners",
}
check_interpreter(__name__, ACP_HANDLERS, ACP_IGNORED)
