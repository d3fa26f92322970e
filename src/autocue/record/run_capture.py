"""Recording a whole agent run (``autocue record --agent NAME | --cmd COMMAND -- PROMPT``).

The recording proxy (``RecordingProxy``, behind a ``TrafficTap``) runs on a loopback port toward
the upstream; the agent is launched with the runner's launch profile (``runner.launch.choose`` /
``build``: the same argv, env and seeded config files as ``autocue run``), its ``Endpoint`` being
the proxy with a fresh session key, in a fresh workspace (a copy of ``--workspace DIR`` when
given) and the runner's pseudo-terminal. A driver (``DRIVERS``, by ``--via``) plays the user:

- ``print``: the prompt goes on the command line (the profile's print mode); the run is one turn,
  over when the program exits.
- ``tui``: the prompt is typed once the profile's ``ready`` text is on screen (``--cmd``: a
  quiet screen), then each ``--input TEXT`` after the previous turn ended, then the profile's
  quit input. A turn has ended when the agent sent at least one model request since the input,
  none is in flight, the last reply did not ask for a tool, and neither traffic nor the screen
  changed for ``IDLE`` seconds.

After each turn the workspace is snapshot. The scenario written (``--out``) is an ordinary one:
the proxy's model turns (``llmResponse`` items as ``autocue record`` writes them), each with a
``toolResult`` per tool call whose result the agent sent back and ``_meta.shell`` for its shell
commands (command, exit code); the typed inputs (``initialPrompt``, ``userInputs``); after each
turn an ``assert: fs`` of the files the turn changed (``autocue.record.run_parts.changes``); the
launch (``agent: NAME``, or ``ah: {cmd}``), and in print mode ``expect: {exitCode}``. MCP calls
made through ``autocue.record.mcp_tee`` wrappers are kept under the top-level ``_meta.mcp``.
``autocue run FILE`` replays it with the same agent.

- ``acp``: the profile's ACP server on pipes, this process its client (``autocue.record.run_acp``);
  the prompt and each ``--input`` are one ``session/prompt``, a turn ends with its answer. Replayed
  with ``autocue run FILE --via acp``.

A ``--via`` is a ``Driver`` in ``DRIVERS``: a function given the ``Session`` (the launch the runner
built, the tap, the workspace, ``snap()``) that starts the program (``start_pty``, or its own with
``close()``, ``exit_code``, ``exited`` and ``last_screen()`` as ``Session.prog``), plays the turns,
snapshots after each, and returns per turn the replies recorded when it ended.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.record.errors import RunCaptureError
from autocue.record.proxy import RecordingProxy, RecordOptions
from autocue.record.run_acp import drive_acp
from autocue.record.run_parts import UNSTATED_IS_ZERO, Snapshot, TrafficTap, changes, clip, shell_entry, snapshot
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import flow

_REPLY = "\n  - llmResponse:"
"""How each recorded reply (or failed call) starts in a recording's text."""
IDLE = 2.0
"""Seconds without model traffic or screen change after which a TUI turn counts as ended."""
QUIT_WAIT = 5.0
"""Seconds a TUI is given to exit after its quit input before its process group is stopped."""


@dataclass(frozen=True, slots=True)
class ProxyEndpoint:
    """The recording proxy as the launched program's model endpoint (``runner.launch.Endpoint``)."""

    base_url: str
    openai_base_url: str
    key: str


@dataclass
class CaptureOptions:
    upstream: str
    out: Path
    prompt: str
    agent: str | None = None
    cmd: str | None = None
    via: str = "print"
    inputs: list[str] = field(default_factory=list)
    """Prompts after the first, one per later turn (``--input``; typed in the TUI, a ``session/prompt`` over ACP)."""
    agent_args: tuple[str, ...] = ()
    agents_files: tuple[str, ...] = ()
    llm_api: str | None = None
    workspace: Path | None = None
    """A folder copied into the run's workspace first (the scenario seeds replays with it: ``repo.dir``)."""
    timeout: float = 300.0
    name: str | None = None
    redactor: Redactor = field(default_factory=Redactor)
    mcp_config: Path | None = None
    """An ``{"mcpServers": ...}`` file: each stdio server runs behind ``autocue.record.mcp_tee`` and the agent
    gets the wrapped file (Claude Code: ``--mcp-config``; a ``--cmd`` program: ``$AUTOCUE_MCP_CONFIG``)."""
    mcp_log: Path | None = None
    """Where ``autocue.record.mcp_tee`` wrappers of this run log (set by the capture)."""


@dataclass
class Session:
    """A run being recorded, as a driver sees it."""

    options: CaptureOptions
    launch: Any
    """The program's launch as the runner builds it (``runner.launch.Launch``: argv, env)."""
    choice: Any
    """The launch profile chosen (``runner.launch.Choice``)."""
    terminal: Any
    """The terminal size (``runner.extras.TerminalProfile``)."""
    tap: TrafficTap
    proxy: RecordingProxy
    workspace: Path
    root: Path
    """The run's private folder (the workspace, the agent's home, the cast)."""
    prog: Any = None
    """The program once a driver started it (``start_pty``: a ``runner.pty.PtyProgram``); another driver may
    start its own with ``close()``, ``exit_code``, ``exited`` and ``last_screen()``."""
    ready: str = ""
    quit_input: str = "<ctrl-d>"
    key_gap: float = 0.0
    settle: float = 0.08
    deadline: float = 0.0
    snapshots: list[Snapshot] = field(default_factory=list)
    mcp_marks: list[int] = field(default_factory=list)
    """Bytes of the MCP tee log at each snapshot."""
    git_dir: Path = Path()

    def start_pty(self) -> None:
        """Start the launched program in the runner's pseudo-terminal (recorded to ``session.cast``)."""
        from autocue.runner.cast import CastWriter
        from autocue.runner.pty import PtyProgram, SpawnError

        t = self.terminal
        cast = CastWriter(self.root / "session.cast", t.width, t.height, title="autocue record")
        try:
            self.prog = PtyProgram(self.launch.argv, cwd=self.workspace, env=self.launch.env, width=t.width,
                                   height=t.height, cast=cast)
        except SpawnError as e:
            cast.close()
            raise RunCaptureError(f"{e} (the program to record)") from None

    def close(self) -> None:
        """Stop the program (its process group: the MCP servers and tees it started too)."""
        if self.prog is not None:
            self.prog.close()

    def recorded(self) -> str:
        """The scenario text of the session the conversation is recorded in (the one with most replies): the
        file the proxy wrote for it."""
        # the files: the proxy appends each reply to its session's file and keeps no written item in memory
        texts = [p.read_text(encoding="utf-8") for p in self.proxy.paths.values() if p.exists()]
        if not texts:
            texts = [p.read_text(encoding="utf-8") for p in sorted(self.proxy.options.out_dir.glob("*.yaml"))]
        return max(texts, key=lambda t: t.count(_REPLY), default="")

    def replies(self) -> int:
        """Replies (and failed calls) recorded so far."""
        return self.recorded().count(_REPLY)

    def last_asked_tool(self) -> bool:
        text = self.recorded()
        return '"stopReason":"toolUse"' in text[text.rfind(_REPLY):] if _REPLY in text else False

    def pump(self, seconds: float) -> None:
        if time.monotonic() > self.deadline:
            raise RunCaptureError(f"the run did not finish within {self.options.timeout:g} s (--timeout)")
        self.prog.pump(seconds)

    def snap(self) -> None:
        """The workspace now (and how far the MCP tee log has come), at a turn's end."""
        self.snapshots.append(snapshot(self.workspace, self.git_dir))
        log = self.options.mcp_log
        self.mcp_marks.append(log.stat().st_size if log is not None and log.exists() else 0)

    def type(self, text: str) -> None:
        from autocue.runner.keys import key_bytes, parse_input

        first = True
        for chunk in parse_input(text):
            if not first and chunk.key:
                end = time.monotonic() + max(self.key_gap, 0.05)
                while time.monotonic() < end:
                    self.pump(end - time.monotonic())
            first = False
            self.prog.write(key_bytes(chunk.key, app_cursor=self.prog.screen.app_cursor_keys) if chunk.key
                            else chunk.data)

    def quiet(self, seconds: float) -> None:
        """Until the screen has not changed for ``seconds`` (or the program exited)."""
        while not self.prog.exited and time.monotonic() - self.prog.last_change < seconds:
            self.pump(0.05)


Driver = Callable[[Session], list[int]]


def drive_print(s: Session) -> list[int]:
    """One turn: the prompt is on the command line; it ends with the program."""
    s.start_pty()
    while not s.prog.exited:
        s.pump(0.1)
    s.prog.wait_exit(time.monotonic() + 5)
    return [s.replies()]


def drive_tui(s: Session) -> list[int]:
    """Type the prompt once the input box is ready, each ``--input`` after the previous turn, then quit."""
    ends: list[int] = []
    s.start_pty()
    s.quiet(max(s.settle, 0.3))
    if s.ready:
        while s.ready not in s.prog.screen.text():
            if s.prog.exited:
                raise RunCaptureError(f"the program exited before its input box showed {s.ready!r}: "
                                      f"{s.prog.last_screen()[-500:]}")
            s.pump(0.05)
        s.quiet(s.settle)
    for text in [s.options.prompt, *s.options.inputs]:
        if s.prog.exited:
            raise RunCaptureError("the program exited before every input was typed")
        before_requests = s.tap.requests
        s.type(text)
        _await_turn(s, before_requests)
        ends.append(s.replies())
        s.snap()
    s.type(s.quit_input)
    end = time.monotonic() + QUIT_WAIT
    while not s.prog.exited and time.monotonic() < end:
        s.prog.pump(0.1)
    return ends


def _await_turn(s: Session, before_requests: int) -> None:
    while True:
        s.pump(0.1)
        now = time.monotonic()
        if s.prog.exited:
            return
        if (s.tap.requests > before_requests and not s.tap.busy() and now - s.tap.last_activity >= IDLE
                and now - s.prog.last_change >= min(IDLE, 1.0) and not s.last_asked_tool()):
            return


DRIVERS: dict[str, Driver] = {"print": drive_print, "tui": drive_tui, "acp": drive_acp}
"""``--via`` values: how the user's side of a run is played."""


def _stub_text(opt: CaptureOptions, tui: bool) -> str:
    lines = ["name: recording", f"initialPrompt: {flow(opt.prompt)}"]
    lines.append("timeline:" + ("\n  - userInputs: [[0, \"<quit>\"]]" if tui else " []"))
    return "\n".join(lines) + "\n"


def record_run(opt: CaptureOptions) -> Path:
    """Record one run of the agent (or command) and write its scenario to ``opt.out``; returns it."""
    from autocue.mockllm.server import LoopbackServer
    from autocue.runner.errors import LaunchError
    from autocue.runner.extras import RunnerExtras, terminal_profile
    from autocue.runner.launch import build, choose
    from autocue.scenario import ScenarioError, load_scenario_text

    driver = DRIVERS.get(opt.via)
    if driver is None:
        raise RunCaptureError(f"--via {opt.via}: not available (use {' or '.join(DRIVERS)})")
    if opt.inputs and opt.via == "print":
        raise RunCaptureError("--input is a later turn: it needs --via tui or acp (print mode takes one prompt)")
    if not opt.prompt.strip():
        raise RunCaptureError("no prompt: give it after `--`, e.g. autocue record --agent pi --upstream URL -- "
                              "'create hello.txt'")
    tui = opt.via == "tui"
    root = Path(tempfile.mkdtemp(prefix="autocue-record-run-"))
    try:
        ws = root / "work"
        if opt.workspace is not None:
            if not opt.workspace.is_dir():
                raise RunCaptureError(f"--workspace {opt.workspace}: not a folder")
            shutil.copytree(opt.workspace, ws, symlinks=True)
        else:
            ws.mkdir()
        stub_file = root / "recording.yaml"
        stub_file.write_text(_stub_text(opt, tui), encoding="utf-8")
        try:
            stub = load_scenario_text(stub_file.read_text(encoding="utf-8"), str(stub_file))
            choice = choose(stub, RunnerExtras(), cmd=opt.cmd, agent=opt.agent, agent_args=opt.agent_args,
                            agents_files=opt.agents_files)
        except (ScenarioError, LaunchError) as e:
            raise RunCaptureError(str(e)) from None
        if tui and choice.agent is not None and choice.agent.tui_args is None:
            raise RunCaptureError(f"--via tui: {choice.runner} has no interactive mode in its profile (use --via "
                                  "print)")
        choice = _with_mcp(choice, opt, root)
        rec_dir = root / "recordings"
        rec_dir.mkdir()
        proxy = RecordingProxy(RecordOptions(upstream=opt.upstream, out_dir=rec_dir, redactor=opt.redactor))
        tap = TrafficTap(proxy)
        terminal = terminal_profile(stub, None)
        key = "autocue-record-" + secrets.token_hex(12)
        opt.mcp_log = root / "mcp.jsonl"
        try:
            with LoopbackServer(tap, "127.0.0.1", 0) as server:  # type: ignore[arg-type]
                ep = ProxyEndpoint(server.base_url, server.openai_base_url, key)
                try:
                    launch = build(choice, stub, terminal=terminal, workspace=ws, state_dir=root, llm=ep,
                                   llm_api=opt.llm_api, via="acp" if opt.via == "acp" else None)
                except LaunchError as e:
                    raise RunCaptureError(str(e)) from None
                launch.env["AUTOCUE_MCP_TEE_LOG"] = str(opt.mcp_log)
                if opt.mcp_config is not None and opt.cmd is not None:
                    launch.env["AUTOCUE_MCP_CONFIG"] = str(root / "mcp.json")
                elif opt.mcp_config is not None:
                    launch.env.update(MCP_ENV.get(choice.runner, {}))
                agent = choice.agent if choice.profile is None else None
                s = Session(opt, launch, choice, terminal, tap, proxy, ws, root,
                            ready=agent.ready if agent is not None else "",
                            quit_input=agent.quit_input if agent is not None else "<ctrl-d>",
                            key_gap=choice.key_gap, settle=choice.settle,
                            deadline=time.monotonic() + opt.timeout, git_dir=root / "ignore-check")
                s.snap()
                try:
                    ends = driver(s)
                    if opt.via == "print":
                        s.snap()
                finally:
                    s.close()
        finally:
            proxy.close_writer()  # the parses it left: closed before the interpreter exits
        prog = s.prog
        if s.tap.requests == 0:
            screen = " | ".join(ln for ln in prog.last_screen().splitlines() if ln.strip())[-400:]
            raise RunCaptureError(f"{choice.runner} sent no request to the recording proxy (exit status "
                                  f"{prog.exit_code}); nothing was recorded; its last screen: {screen or '(empty)'}")
        text = assemble(opt, choice_line(choice, opt), s, ends, tui=tui, exit_code=prog.exit_code)
        opt.out.parent.mkdir(parents=True, exist_ok=True)
        opt.out.write_text(text, encoding="utf-8")
        return opt.out
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(root, ignore_errors=True)


MCP_ARGS = {"claude": ("--mcp-config", "{config}")}
"""How an agent CLI is given an MCP config file, by launch profile (the wrapped file as ``{config}``)."""
MCP_ENV = {"claude": {"MCP_CONNECTION_NONBLOCKING": "0"}}
"""Its environment for MCP (Claude Code: connect the servers before the first request, not meanwhile)."""


def _with_mcp(choice: Any, opt: CaptureOptions, root: Path) -> Any:
    """``choice`` with the agent pointed at ``opt.mcp_config``'s servers, each behind the tee."""
    import dataclasses
    import json

    from autocue.record.mcp_tee import wrap_servers

    if opt.mcp_config is None:
        return choice
    name = choice.runner if choice.profile is None else choice.profile
    if opt.cmd is None and name not in MCP_ARGS:
        raise RunCaptureError(f"--mcp-config: autocue record gives MCP servers to {', '.join(MCP_ARGS)} and --cmd "
                              f"programs ($AUTOCUE_MCP_CONFIG), not to {name}")
    try:
        config = json.loads(opt.mcp_config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RunCaptureError(f"--mcp-config {opt.mcp_config}: cannot read it as JSON: {e}") from None
    if not isinstance(config, dict) or not isinstance(config.get("mcpServers"), dict):
        raise RunCaptureError(f"--mcp-config {opt.mcp_config}: expected "
                              '{"mcpServers": {NAME: {command, args}}}')
    wrapped = root / "mcp.json"
    wrapped.write_text(json.dumps(wrap_servers(config)), encoding="utf-8")
    if opt.cmd is not None:
        return choice
    extra = tuple(a.replace("{config}", str(wrapped)) for a in MCP_ARGS[name])
    return dataclasses.replace(choice, agent_args=(*choice.agent_args, *extra))


def choice_line(choice: Any, opt: CaptureOptions) -> dict[str, Any]:
    """The scenario's launch: ``agent: NAME`` (with ``--agent-arg``s as ``ah.flags``) or ``ah: {cmd}``."""
    if opt.cmd is not None:  # the env entry tells `autocue run` the program uses its mock server
        return {"ah": {"cmd": opt.cmd, "env": {"AUTOCUE_BASE_URL": "{base_url}"}}}
    out: dict[str, Any] = {"agent": choice.runner if choice.profile is None else choice.profile}
    return out


def _recording(s: Session) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The recorded session's head (``server.recording``, ...) and its timeline items."""
    from ruamel.yaml import YAML

    text = s.recorded()
    doc = YAML(typ="safe", pure=True).load(text) if text else None
    if not isinstance(doc, dict):
        return {}, []
    return doc, list(doc.get("timeline") or [])


def assemble(opt: CaptureOptions, launch: dict[str, Any], s: Session, ends: list[int], *, tui: bool,
             exit_code: int | None) -> str:
    """The scenario text of a recorded run."""
    import orjson

    recorded, items = _recording(s)
    replies = [i for i in items if "llmResponse" in i]
    program = f"--agent {launch['agent']}" if "agent" in launch else "--cmd"
    head: list[str] = [f"# recorded by autocue record ({program}, --via {opt.via}): the model turns, the typed "
                       "inputs, each turn's workspace changes"]
    if opt.via == "acp":
        head.append(f"# replay: autocue run {opt.out.name} --via acp")
    name = opt.name or opt.out.stem
    head.append(f"name: {flow(name)}")
    for k, v in launch.items():
        head.append(f"{k}: {flow(v)}")
    if (tui and opt.cmd is None) or not tui:
        head.append(f"initialPrompt: {flow(s.options.redactor.text(opt.prompt))}")
    if opt.workspace is not None:
        head.append(f"repo: {flow({'dir': str(opt.workspace.resolve())})}")
    server: dict[str, Any] = {}
    traits = (recorded.get("server") or {}).get("recording")
    if traits:
        server["recording"] = traits
    match = (recorded.get("server") or {}).get("match")
    if match:  # strict: the replay fails at the first request that differs from the recorded one's fingerprint
        server["match"] = match
    if opt.llm_api:
        server["llmApiStyle"] = opt.llm_api
    if server:
        head.append(f"server: {flow(server)}")
    if not tui and exit_code is not None:
        head.append(f"expect: {flow({'exitCode': exit_code})}")
    body: list[str] = []
    if tui and opt.cmd is not None:
        body.append(f"  - userInputs: [[0, {flow(opt.prompt)}]]\n")
    start = 0
    for turn, end in enumerate(ends, 1):
        mcp = _mcp_calls(opt.mcp_log, s.mcp_marks, turn)
        turn_replies = replies[start:end]
        for i, item in enumerate(turn_replies):
            body.append(_render_reply(item, s, {"mcp": mcp} if mcp and i == len(turn_replies) - 1 else {}))
        start = max(start, end)
        if turn < len(s.snapshots):
            check = changes(s.workspace, s.snapshots[turn - 1], s.snapshots[turn], turn)
            if check is not None:
                if "assert" in check:
                    body.append(f"  - assert: {flow(check['assert'])}\n    _meta: {flow(check['_meta'])}\n")
                else:
                    skipped = orjson.dumps(check["_meta"]).decode()
                    body.append(f"  # turn {turn}: only skipped files changed: {skipped}\n")
        if turn < len(ends):
            body.append(f"  - userInputs: [[0, {flow(opt.inputs[turn - 1])}]]\n")
    for item in replies[start:]:
        body.append(_render_reply(item, s))
    if tui and opt.cmd is None and not opt.inputs:
        body.append("  - userInputs: [[0, \"<quit>\"]]\n")
    return "\n".join(head) + "\ntimeline:\n" + "".join(body)


def _render_reply(item: dict[str, Any], s: Session, extra: dict[str, Any] | None = None) -> str:
    parts = list(item.get("llmResponse") or [])
    meta = dict(item.get("_meta") or {})
    shell: list[dict[str, Any]] = []
    out = ["  - llmResponse:\n"]
    red = s.options.redactor
    for p in parts:
        out.append(f"      - {next(iter(p))}: {flow(p[next(iter(p))])}\n")
        use = p.get("agentToolUse") if isinstance(p, dict) else None
        if isinstance(use, dict) and use.get("toolCallId"):
            cid = str(use["toolCallId"])
            res = s.tap.results.get(cid)
            if res is not None:
                result = {"toolCallId": cid, "content": red.text(clip(res.text)), "isError": res.is_error}
                out.append(f"      - toolResult: {flow(result)}\n")
            entry = shell_entry(str(use.get("toolName")), cid, use.get("args"), res,
                                unstated_is_zero=s.choice.runner in UNSTATED_IS_ZERO)
            if entry is not None:
                shell.append(red.value(entry))
    if shell:
        meta["shell"] = shell
    meta.update(red.value(extra or {}))
    if meta:
        out.append(f"    _meta: {flow(meta)}\n")
    return "".join(out)


def _mcp_calls(log: Path | None, marks: list[int], turn: int) -> list[dict[str, Any]]:
    """The MCP calls logged during ``turn`` (between its snapshots)."""
    from autocue.record.mcp_tee import read_calls

    if log is None or turn >= len(marks):
        return []
    return read_calls(log, marks[turn - 1], marks[turn])
