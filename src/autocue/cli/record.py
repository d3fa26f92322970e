"""``autocue record``: a recording proxy; real traffic becomes scenarios.

    autocue record --upstream URL [--api auto|chat|responses|anthropic|gemini] [-o DIR]
                   [--host 127.0.0.1] [--port 0] [--redact REGEX ...] [--redact-env NAME ...]
                   [--secret-header NAME ...] [--no-default-redaction] [--json]
    autocue record --check SCENARIO --upstream URL [--api chat|responses|anthropic|gemini]
                   [--model NAME] [--api-key-env NAME] [--json]

Prints the bound URL first (``autocue record proxy: http://127.0.0.1:PORT -> UPSTREAM``, or one
JSON line with ``--json``), then one line per session as its scenario file is created, and
serves until interrupted.

With ``--check``, nothing is proxied: each recorded reply of SCENARIO is asked of the upstream
again (on the recorded conversation) and the drift of each is printed (identical, benign,
regression); exit 1 on a regression (see ``autocue.record.check``).
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
    return p


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
