"""``autocue record``: a recording proxy; real traffic becomes scenarios.

    autocue record --upstream URL [--api auto|chat|responses|anthropic|gemini] [-o DIR]
                   [--host 127.0.0.1] [--port 0] [--redact REGEX ...] [--redact-env NAME ...]
                   [--secret-header NAME ...] [--no-default-redaction] [--json]
    autocue record --check SCENARIO --upstream URL [--api chat|responses|anthropic|gemini]
                   [--model NAME] [--api-key-env NAME] [--json]
    autocue record --agent NAME | --cmd COMMAND --upstream URL [--via print|tui|acp] [--out FILE]
                   [--input TEXT ...] [--agent-arg ARG ...] [--workspace DIR] [--timeout S] -- PROMPT...

Prints the bound URL first (``autocue record proxy: http://127.0.0.1:PORT -> UPSTREAM``, or one
JSON line with ``--json``), then one line per session as its scenario file is created, and
serves until interrupted.

With ``--check``, nothing is proxied: each recorded reply of SCENARIO is asked of the upstream
again (on the recorded conversation) and the drift of each is printed (identical, benign,
regression); exit 1 on a regression (see ``autocue.record.check``).

With ``--agent`` or ``--cmd``, the proxy runs for one recorded run: the agent is launched with
its launch profile behind it, played (print mode: the prompt on its command line; TUI: typed,
then each ``--input``), and the whole run is written as one scenario (``--out FILE``; see
``autocue.record.run_capture``), which ``autocue run FILE`` replays.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

import orjson

from autocue.catalog.apis import APIS, api_names, either
from autocue.cli.args import CliParser, fail
from autocue.cli.serving import add_listen_options, base_url_lines, listen, serve_forever
from autocue.record.proxy import API_CHOICES, RecordingProxy, RecordOptions
from autocue.scenario.redact import RedactionError, Redactor

PROG = "autocue record"
ANNOUNCE_QUEUE = 64 * 1024
"""Bytes of session announcements waiting for stdout at most; past it they are dropped and counted."""


def _try_write(fd: int, text: str) -> None:
    """Write ``text`` to ``fd`` if it can take it now (never blocks: stderr may be a full pipe too)."""
    try:
        if select.select([], [fd], [], 0)[1]:
            os.write(fd, text.encode())
    except (OSError, ValueError):
        pass


class Announcer:
    """Announcement lines for stdout that never block the proxy.

    ``put`` queues a line and returns at once; a daemon thread writes the queue to ``fd``
    (blocking there, not in the event loop). A parent that does not read stdout fills the pipe,
    then the queue (``ANNOUNCE_QUEUE`` bytes); further lines are dropped and counted, stderr says
    so once, and when the parent reads again a ``note(n)`` line says how many were dropped before
    the next announcement. ``unprinted()``: announcements that never reached ``fd``.
    """

    def __init__(self, fd: int, note: Callable[[int], str], cap: int = ANNOUNCE_QUEUE) -> None:
        self.fd = fd
        self.note = note
        self.cap = cap
        self.queue: deque[tuple[bytes, int]] = deque()
        """(line, announcements it is: 1, or 0 for a note)."""
        self.dropped = 0
        self._unreported = 0
        self._in_flight = 0
        self._queued = 0
        """Bytes in ``queue``."""
        self._broken = False
        self._cond = threading.Condition()
        threading.Thread(target=self._run, name="autocue-record-announce", daemon=True).start()

    def put(self, line: str) -> None:
        with self._cond:
            data = line.encode() + b"\n"
            if self._broken or self._queued + len(data) > self.cap:
                if self.dropped == 0 and not self._broken:
                    _try_write(2, f"{PROG}: stdout is not read (the pipe is full): session announcements are "
                                  "dropped and counted until it is; every session is still recorded\n")
                self.dropped += 1
                self._unreported += 1
                return
            if self._unreported:
                self._append(self.note(self._unreported).encode() + b"\n", 0)
                self._unreported = 0
            self._append(data, 1)
            self._cond.notify()

    def _append(self, data: bytes, n: int) -> None:
        self.queue.append((data, n))
        self._queued += len(data)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self.queue:
                    self._cond.wait()
                data, n = self.queue.popleft()
                self._queued -= len(data)
                self._in_flight = n
            try:
                while data:
                    data = data[os.write(self.fd, data):]
            except OSError:  # the reader is gone: nothing more can be printed
                with self._cond:
                    self._broken = True
                    self.dropped += n + sum(k for _, k in self.queue)
                    self.queue.clear()
                    self._queued = 0
            with self._cond:
                self._in_flight = 0
                self._cond.notify_all()

    def unprinted(self, wait: float = 0.5) -> int:
        """Announcements not printed, once the queue is written or ``wait`` seconds passed."""
        with self._cond:
            self._cond.wait_for(lambda: not (self.queue or self._in_flight), wait)
            return self.dropped + self._in_flight + sum(n for _, n in self.queue)


def _exit_on_term(signum: int, frame: FrameType | None) -> None:
    """SIGTERM after the server shut down (uvicorn handles it first, then raises it again)."""
    raise SystemExit(128 + signum)


def parser() -> argparse.ArgumentParser:
    p = CliParser(prog=PROG, description="Record real LLM API traffic into scenarios: a proxy for "
                                f"{either(tuple(e.label for e in APIS.values()), 'and')}.")
    p.add_argument("--upstream", required=True, metavar="URL",
                   help="the API to forward to, e.g. https://api.openai.com or http://127.0.0.1:8000")
    p.add_argument("--api", default="auto", choices=API_CHOICES,
                   help="wire protocol of the model calls (default auto: from each request's path)")
    p.add_argument("-o", "--out", default="recordings", metavar="DIR",
                   help="directory for the scenario files, one per client session (default ./recordings)")
    add_listen_options(p)
    p.add_argument("--redact", action="append", default=[], metavar="REGEX",
                   help="also replace matches of REGEX with [REDACTED] in what is written (repeatable)")
    p.add_argument("--redact-env", action="append", default=[], metavar="NAME",
                   help="replace the value of environment variable NAME wherever it appears (repeatable)")
    p.add_argument("--secret-header", action="append", default=[], metavar="NAME",
                   help="a request header whose value is a credential: redacted wherever it appears, like API keys, "
                        "cookies and x-internal-token (repeatable)")
    p.add_argument("--no-default-redaction", action="store_true",
                   help="do not apply the built-in API-key patterns (credentials seen in requests are still redacted)")
    p.add_argument("--json", action="store_true", help="print the bound address as one JSON line")
    p.add_argument("--check", default=None, metavar="SCENARIO",
                   help="replay SCENARIO's conversation against the upstream and report the drift of each reply")
    p.add_argument("--model", default=None,
                   help="--check: the model to ask (default: the recording's _meta model, else autocue-check)")
    p.add_argument("--api-key-env", default=None, metavar="NAME",
                   help="--check: send the value of environment variable NAME as the API key")
    run = p.add_argument_group("recording a whole agent run (--agent or --cmd, then -- PROMPT)")
    run.add_argument("--agent", default=None, metavar="NAME",
                     help="record a run of this agent CLI, launched with its launch profile (claude, codex, pi, ...)")
    run.add_argument("--cmd", default=None, metavar="COMMAND",
                     help="record a run of this command (placeholders {openai_base_url}, {base_url}, {api_key}, "
                          "{prompt}, {python}; AUTOCUE_OPENAI_BASE_URL etc. in its env)")
    run.add_argument("--via", default="print", metavar="print|tui|acp",
                     help="print: the prompt on the command line (one turn, default); tui: typed into the TUI, "
                          "then each --input; acp: over the agent's ACP server, one session/prompt each (replay "
                          "it with autocue run --via acp)")
    run.add_argument("--input", action="append", default=[], metavar="TEXT",
                     help="a later turn's prompt, typed (or, --via acp, prompted) once the previous turn ended "
                          "(repeatable; --via tui or acp)")
    run.add_argument("--agent-arg", action="append", default=[], metavar="ARG",
                     help="an extra argument for the agent's command line (repeatable)")
    run.add_argument("--agents-file", action="append", default=[], metavar="FILE",
                     help="a file of user-defined launch profiles (repeatable)")
    run.add_argument("--llm-api", default=None, metavar="STYLE",
                     help="the wire protocol the agent speaks, as server.llmApiStyle (default: its profile's first)")
    run.add_argument("--workspace", default=None, metavar="DIR",
                     help="copy DIR into the run's workspace first (the scenario seeds replays from it: repo.dir)")
    run.add_argument("--mcp-config", default=None, metavar="FILE",
                     help='an {"mcpServers": ...} file: its stdio servers run behind a JSON-RPC tee and the calls are '
                          "recorded (Claude Code: --mcp-config; --cmd: $AUTOCUE_MCP_CONFIG)")
    run.add_argument("--timeout", type=float, default=300.0, metavar="S",
                     help="seconds the whole run may take (default 300)")
    run.add_argument("--name", default=None, help="the scenario's name (default: the file's stem)")
    run.add_argument("prompt", nargs="*", help=argparse.SUPPRESS)
    return p


def _run_agent(args: argparse.Namespace, redactor: Redactor) -> int:
    """``--agent`` / ``--cmd``: record one whole run into one scenario file."""
    import time

    from autocue.record.errors import RunCaptureError
    from autocue.record.run_capture import CaptureOptions, record_run

    if args.agent is not None and args.cmd is not None:
        return fail(PROG, "--agent and --cmd both name the program to record: give one")
    if args.check is not None:
        return fail(PROG, "--check replays a recording; --agent / --cmd record a new run: give one of them")
    out = Path(args.out)
    if out.suffix not in (".yaml", ".yml"):
        stem = args.name or f"{args.agent or 'cmd'}-{time.strftime('%Y%m%d-%H%M%S')}"
        out = out / f"{stem}.yaml"
    if out.exists() and out.is_dir():
        return fail(PROG, f"--out {out}: is a directory (name a .yaml file, or a directory without .yaml)")
    try:
        path = record_run(CaptureOptions(
            upstream=args.upstream, out=out, prompt=" ".join(args.prompt), agent=args.agent, cmd=args.cmd,
            via=args.via, inputs=list(args.input), agent_args=tuple(args.agent_arg),
            agents_files=tuple(args.agents_file), llm_api=args.llm_api,
            workspace=Path(args.workspace) if args.workspace else None,
            mcp_config=Path(args.mcp_config) if args.mcp_config else None, timeout=args.timeout, name=args.name,
            redactor=redactor))
    except RunCaptureError as e:
        return fail(PROG, str(e))
    except KeyboardInterrupt:
        fail(PROG, "interrupted: the agent was stopped and nothing was written")
        return 130
    except OSError as e:
        return fail(PROG, f"--out {out}: cannot write the scenario: {e.strerror or e}")
    if args.json:
        print(orjson.dumps({"file": str(path)}).decode())
    else:
        print(f"recorded {path} (replay: autocue run {path}{' --via acp' if args.via == 'acp' else ''})")
    return 0


def _run_check(args: argparse.Namespace) -> int:
    import asyncio
    import os

    from autocue.cli.args import one_line
    from autocue.record.check import CheckError, CheckOptions, check_drift, check_json
    from autocue.scenario import ScenarioError, load_scenario
    from autocue.scenario.drift import reply_metas

    api = args.api if args.api != "auto" else api_names()[0]  # --check speaks one API: auto is the first
    key = None
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            return fail(PROG, f"--api-key-env {args.api_key_env}: the variable is not set")
    try:
        sc = load_scenario(args.check)
        model = args.model or next((m["model"] for m in reply_metas(sc) or [] if m and m.get("model")),
                                   "autocue-check")
        report = asyncio.run(check_drift(sc, CheckOptions(args.upstream, api, model, key)))
    except (ScenarioError, CheckError) as e:
        return fail(PROG, f"--check: {one_line(str(e))}")
    if args.json:
        print(orjson.dumps(check_json(report, args.check, args.upstream), default=str).decode())
    else:
        n = len(report.regressions)
        print(f"drift of {args.check} against {args.upstream}: {report.verdict} ({n} regression(s), "
              f"{len(report.differences) - n} benign difference(s), {len(report.steps)} replies)")
        for st in report.steps:
            print(f"  reply {st.reply} (turn {st.turn}, step {st.step}): {st.verdict}: {st.a}"
                  + ("" if st.verdict == "identical" else f" → {st.b}"))
            for d in report.differences:
                if d.reply == st.reply:
                    print(f"      {d.severity}: {d.kind}: {d.change()}")
        for d in report.differences:
            if d.reply is None:
                print("  " + d.describe())
    return 1 if report.verdict == "regression" else 0


def _check_upstream(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--upstream {url!r}: expected an http:// or https:// URL with a host, e.g. http://127.0.0.1:8000"
    return None


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    problem = _check_upstream(args.upstream)
    if problem:
        return fail(PROG, problem)
    run_flags = [f for f, v in (("--via", args.via != "print"), ("--input", args.input),
                                ("--agent-arg", args.agent_arg), ("--workspace", args.workspace)) if v]
    if args.agent is None and args.cmd is None and (args.prompt or run_flags):
        what = "a prompt" if args.prompt else run_flags[0]
        return fail(PROG, f"{what} is for recording a whole run: name the program with --agent NAME or --cmd COMMAND")
    if args.agent is not None or args.cmd is not None:
        try:
            red = Redactor(args.redact, args.redact_env, defaults=not args.no_default_redaction,
                           secret_headers=args.secret_header)
        except RedactionError as e:
            return fail(PROG, str(e))
        return _run_agent(args, red)
    if args.check is not None:
        return _run_check(args)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return fail(PROG, f"-o {out}: exists and is not a directory (name a directory for the scenarios)")
    try:
        redactor = Redactor(args.redact, args.redact_env, defaults=not args.no_default_redaction,
                            secret_headers=args.secret_header)
    except RedactionError as e:
        return fail(PROG, str(e))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return fail(PROG, f"-o {out}: cannot create the directory: {e.strerror or e}")
    sock = listen(PROG, args)
    if sock is None:
        return 2

    if args.json:
        announcer = Announcer(1, lambda n: orjson.dumps({"dropped": n}).decode())
    else:
        announcer = Announcer(1, lambda n: f"  ({n} session announcement(s) dropped: stdout was not read)")

    def announce(name: str, path: Path) -> None:
        if args.json:
            announcer.put(orjson.dumps({"session": name, "file": str(path)}).decode())
        else:
            announcer.put(f"  recording session {name} -> {path}")

    def announce_url(url: str, port: int) -> None:
        if args.json:
            print(orjson.dumps({"url": url, "port": port, "upstream": redactor.text(args.upstream),
                                "out": str(out)}).decode(),
                  flush=True)
        else:
            print(f"autocue record proxy: {url} -> {redactor.text(args.upstream)}", flush=True)
            print("\n".join(base_url_lines(url)))
            print(f"  scenarios: {out}/ (one file per session)", flush=True)

    proxy = RecordingProxy(RecordOptions(upstream=args.upstream, out_dir=out, api=args.api, redactor=redactor,
                                         on_new_file=announce))
    signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        with sock:
            return serve_forever(PROG, args, sock, proxy, announce_url)
    finally:
        if n := announcer.unprinted():
            _try_write(2, f"{PROG}: {n} session announcements were not printed (stdout is not read); every "
                          f"session is recorded in {out}/\n")
