"""``autocue serve``: run the mock LLM API server on scenarios.

    autocue serve [SCENARIO_OR_DIR ...] [--host 127.0.0.1] [--port 0] [--speed 0]
                  [--strict-tools] [--record-dir DIR] [--profile NAME] [--workspace DIR]
                  [--admin-token TOKEN] [--journal-size N] [--chaos SPEC] [--fuzz SEED]
                  [--session-ttl SECONDS] [--max-sessions N] [--session-key KEY]
                  [--match strict|loose|off]

Prints the bound URL (``autocue mock LLM server: http://127.0.0.1:PORT``) and how to point
agents at it, then serves until interrupted. ``--json`` prints one JSON line instead
(``{"url": ..., "port": ..., "scenarios": [...]}``) for scripts that start it.

The socket listens before the server and its scenarios load: a client that connects during
start-up waits for its answer instead of being refused.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from autocue.cli.args import CliParser, fail, one_line
from autocue.cli.otel import add_options as add_otel_options
from autocue.cli.otel import start as start_otel
from autocue.cli.serving import add_listen_options, base_url_lines, listen, serve_forever
from autocue.mockllm.journal import JOURNAL_CAP
from autocue.mockllm.options import MAX_SESSIONS, SESSION_TTL, ServerOptions

if TYPE_CHECKING:
    from autocue.mockllm.wire.fuzz import FuzzSpec
    from autocue.script.chaos import ChaosSpec

PROG = "autocue serve"


def chaos_spec(text: str) -> ChaosSpec:
    """``--chaos``: a chaos spec (``autocue.script.chaos``, imported only for one)."""
    from autocue.script.chaos import ChaosSpecError, parse_chaos

    try:
        return parse_chaos(text)
    except ChaosSpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def fuzz_spec(text: str) -> FuzzSpec:
    """``--fuzz``: a fuzz spec (``autocue.mockllm.wire.fuzz``, imported only for one)."""
    from autocue.mockllm.wire.fuzz import FuzzSpecError, parse_fuzz

    try:
        return parse_fuzz(text)
    except FuzzSpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parser() -> argparse.ArgumentParser:
    from autocue.catalog.apis import APIS
    from autocue.scenario.profiles import PROFILE_NAMES

    p = CliParser(prog=PROG, description="Run the mock LLM API server "
                                f"({', '.join(e.label for e in APIS.values())}) on scenarios.")
    p.add_argument("sources", nargs="*", metavar="SCENARIO_OR_DIR", help="scenario YAML files or directories")
    add_listen_options(p)
    p.add_argument("--speed", type=float, default=0.0,
                   help="multiplier of scripted [ms, text] delays (default 0: no delay; 1: as written)")
    p.add_argument("--strict-tools", action="store_true",
                   help="answer 400 when a request's declared tools do not match the tool profile")
    p.add_argument("--record-dir", default=None, help="save requests that match nothing under DIR")
    p.add_argument("--profile", default=None,
                   help=f"tool profile for every session ({', '.join(PROFILE_NAMES)})")
    p.add_argument("--workspace", default=None, help="root for fs/json/git assertions (default: current dir)")
    p.add_argument("--admin-token", default=os.environ.get("AUTOCUE_ADMIN_TOKEN") or None, metavar="TOKEN",
                   help="require TOKEN (Authorization: Bearer or X-Autocue-Admin-Token) on the /_autocue/ admin "
                        "routes (default: $AUTOCUE_ADMIN_TOKEN)")
    p.add_argument("--journal-size", type=int, default=JOURNAL_CAP, metavar="N",
                   help=f"requests kept per session in its journal (default {JOURNAL_CAP}; 0: none)")
    p.add_argument("--chaos", type=chaos_spec, default=None, metavar="SPEC",
                   help="faults and latency for every session, e.g. 'latency=200ms,tps=50;error=429@0.1;seed=7' "
                        "(docs/chaos.md)")
    p.add_argument("--fuzz", type=fuzz_spec, default=None, metavar="SEED",
                   help="serve every stream valid but adversarial: SEED or SEED,option=value,... (docs/chaos.md)")
    p.add_argument("--session-ttl", type=float, default=SESSION_TTL, metavar="SECONDS",
                   help=f"forget a session idle this long; its key then starts afresh (default {SESSION_TTL:g}; "
                        "0: never; pin one with POST /_autocue/sessions/KEY/pin)")
    p.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, metavar="N",
                   help=f"keep at most N sessions, the least recently used goes first (default {MAX_SESSIONS}; "
                        "0: no bound)")
    p.add_argument("--session-key", default=None, metavar="KEY",
                   help="replay the recording made under client key KEY to clients whose own key chose none "
                        "(docs/record.md)")
    p.add_argument("--match", choices=("strict", "loose", "off"), default=None,
                   help="compare each request with the one recorded for its reply: strict fails a differing one, "
                        "loose serves it and reports it, off does not compare (default: the scenario's "
                        "server.match, which autocue record writes as strict; else off)")
    p.add_argument("--json", action="store_true", help="print the bound address as one JSON line")
    add_otel_options(p)
    return p


def _dir_problem(option: str, value: str | None, *, must_exist: bool) -> str | None:
    if value is None:
        return None
    p = Path(value)
    if p.is_dir():
        return None
    if p.exists():
        return f"{option} {value}: not a directory; give a directory"
    if must_exist:
        return f"{option} {value}: no such directory"
    return None


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if not args.speed >= 0:  # also NaN
        return fail(PROG, f"--speed {args.speed}: must be 0 or more (0: no delay, 1: as written)")
    problem = _dir_problem("--workspace", args.workspace, must_exist=True) or _dir_problem(
        "--record-dir", args.record_dir, must_exist=False)
    if problem:
        return fail(PROG, problem)
    options = ServerOptions(speed=args.speed, strict_tools=args.strict_tools,
                            record_dir=Path(args.record_dir) if args.record_dir else None, profile=args.profile,
                            admin_token=args.admin_token or None, journal_size=max(0, args.journal_size),
                            chaos=args.chaos, fuzz=args.fuzz, session_ttl=max(0.0, args.session_ttl),
                            max_sessions=max(0, args.max_sessions), session_key=args.session_key or None,
                            match=args.match)
    if args.workspace:
        options.workspace = Path(args.workspace)
    if start_otel(PROG, args, "autocue-serve"):
        return 2
    sock = listen(PROG, args)
    if sock is None:
        return 2
    with sock:
        return _serve(args, options, sock)


def _serve(args: argparse.Namespace, options: ServerOptions, sock: socket.socket) -> int:
    """Load the scenarios and serve them on ``sock``, which already listens."""
    from autocue.mockllm.app import create_app
    from autocue.mockllm.sources import ScenarioSourceError
    from autocue.mockllm.state import MockState

    try:
        state = MockState([Path(s) for s in args.sources], options)
    except (ScenarioSourceError, ValueError) as e:
        return fail(PROG, one_line(str(e)))
    for p in state.playables.values():
        for w in p.warnings:
            print(f"{PROG}: warning: {p.name}: {w}", file=sys.stderr)
    names = list(state.playables)

    def announce(url: str, port: int) -> None:
        if args.json:
            print(orjson.dumps({"url": url, "port": port, "scenarios": names}).decode(), flush=True)
        else:
            print(f"autocue mock LLM server: {url}", flush=True)
            print(f"  scenarios: {', '.join(names) or 'none (load with POST /_autocue/scenarios)'}")
            print("\n".join(base_url_lines(url)))
            print(f"  sessions: GET {url}/_autocue/sessions", flush=True)

    from autocue import suite_coverage

    if suite_coverage.COLLECTOR is not None:  # its part is written at exit: SIGTERM ends the process by exiting
        signal.signal(signal.SIGTERM, _exit_on_signal)
    return serve_forever(PROG, args, sock, create_app(state), announce)


def _exit_on_signal(signum: int, frame: object) -> None:
    sys.exit(128 + signum)
