"""``autocue serve``: run the mock LLM API server on scenarios.

    autocue serve [SCENARIO_OR_DIR ...] [--host 127.0.0.1] [--port 0] [--speed 0]
                  [--strict-tools] [--record-dir DIR] [--profile NAME] [--workspace DIR]
                  [--admin-token TOKEN] [--journal-size N] [--chaos SPEC] [--fuzz SEED]
                  [--session-ttl SECONDS] [--max-sessions N]

Prints the bound URL (``autocue mock LLM server: http://127.0.0.1:PORT``) and how to point
agents at it, then serves until interrupted. ``--json`` prints one JSON line instead
(``{"url": ..., "port": ..., "scenarios": [...]}``) for scripts that start it.

The socket listens before the server and its scenarios load: a client that connects during
start-up waits for its answer instead of being refused.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from autocue.cli.args import CliParser, one_line
from autocue.mockllm.journal import JOURNAL_CAP
from autocue.mockllm.options import MAX_SESSIONS, SESSION_TTL, ServerOptions
from autocue.mockllm.sockets import bind_socket

if TYPE_CHECKING:
    from autocue.mockllm.wire.fuzz import FuzzSpec
    from autocue.script.chaos import ChaosSpec

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def port_number(text: str) -> int:
    """``--port``: an integer 0-65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a port 0-65535 (0: any free port)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is out of range; give a port 0-65535 (0: any free port)")
    return port


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
    p = CliParser(prog="autocue serve", description="Run the mock LLM API server (OpenAI Chat, "
                                "OpenAI Responses, Anthropic Messages, Gemini) on scenarios.")
    p.add_argument("sources", nargs="*", metavar="SCENARIO_OR_DIR", help="scenario YAML files or directories")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=0, help="port 0-65535 (default 0: any free port)")
    p.add_argument("--speed", type=float, default=0.0,
                   help="multiplier of scripted [ms, text] delays (default 0: no delay; 1: as written)")
    p.add_argument("--strict-tools", action="store_true",
                   help="answer 400 when a request's declared tools do not match the tool profile")
    p.add_argument("--record-dir", default=None, help="save requests that match nothing under DIR")
    p.add_argument("--profile", default=None,
                   help="tool profile for every session (autocue, pi, claude-code, codex, opencode, gemini-cli)")
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
    p.add_argument("--json", action="store_true", help="print the bound address as one JSON line")
    p.add_argument("--log-level", default="warning", type=str.lower, choices=LOG_LEVELS,
                   help="uvicorn log level (default warning)")
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


def bind_problem(host: str, port: int, e: OSError) -> str:
    """One line for a socket that could not be bound (used by every command that serves HTTP)."""
    where = f"{host}:{port}"
    if e.errno == errno.EADDRINUSE:
        return f"cannot listen on {where}: the port is in use; pick another --port, or --port 0 for any free one"
    if e.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
        return f"cannot listen on {where}: {e.strerror}; check --host and --port"
    if isinstance(e, socket.gaierror):
        return f"cannot listen on {where}: unknown host {host!r} ({e.strerror}); check --host"
    return f"cannot listen on {where}: {e.strerror or e}"


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if not args.speed >= 0:  # also NaN
        print(f"autocue serve: --speed {args.speed}: must be 0 or more (0: no delay, 1: as written)", file=sys.stderr)
        return 2
    problem = _dir_problem("--workspace", args.workspace, must_exist=True) or _dir_problem(
        "--record-dir", args.record_dir, must_exist=False)
    if problem:
        print(f"autocue serve: {problem}", file=sys.stderr)
        return 2
    options = ServerOptions(speed=args.speed, strict_tools=args.strict_tools,
                            record_dir=Path(args.record_dir) if args.record_dir else None, profile=args.profile,
                            admin_token=args.admin_token or None, journal_size=max(0, args.journal_size),
                            chaos=args.chaos, fuzz=args.fuzz, session_ttl=max(0.0, args.session_ttl),
                            max_sessions=max(0, args.max_sessions))
    if args.workspace:
        options.workspace = Path(args.workspace)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as e:
        print(f"autocue serve: {bind_problem(args.host, args.port, e)}", file=sys.stderr)
        return 2
    try:
        return _serve(args, options, sock)
    finally:
        sock.close()


def _serve(args: argparse.Namespace, options: ServerOptions, sock: socket.socket) -> int:
    """Load the scenarios and serve them on ``sock``, which already listens."""
    import uvicorn

    from autocue.mockllm.app import create_app
    from autocue.mockllm.server import uvicorn_config
    from autocue.mockllm.sources import ScenarioSourceError
    from autocue.mockllm.state import MockState

    try:
        state = MockState([Path(s) for s in args.sources], options)
    except (ScenarioSourceError, ValueError) as e:
        print(f"autocue serve: {one_line(str(e))}", file=sys.stderr)
        return 2
    for p in state.playables.values():
        for w in p.warnings:
            print(f"autocue serve: warning: {p.name}: {w}", file=sys.stderr)
    try:
        config = uvicorn_config(create_app(state), args.log_level)
    except ValueError as e:  # AUTOCUE_HTTP_PARSER names no parser
        print(f"autocue serve: {one_line(str(e))}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}"
    names = list(state.playables)
    if args.json:
        print(orjson.dumps({"url": url, "port": port, "scenarios": names}).decode(), flush=True)
    else:
        print(f"autocue mock LLM server: {url}", flush=True)
        print(f"  scenarios: {', '.join(names) or 'none (load with POST /_autocue/scenarios)'}")
        print(f"  OpenAI base URL: {url}/v1   Anthropic / Gemini base URL: {url}")
        print(f"  sessions: GET {url}/_autocue/sessions", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0
