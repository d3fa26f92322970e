"""``autocue simulate``: stream scenarios as simulated sessions over REST + SSE (docs/simulate.md).

    autocue simulate SCENARIO_OR_DIR ... [--host 127.0.0.1] [--port 0] [--speed 1] [--loop]
                     [--session-ttl SECONDS] [--max-sessions N]
    autocue simulate schema             print the event JSON Schema

The first line printed is the bound URL (``autocue simulation server: http://127.0.0.1:PORT``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from autocue.cli.args import CliParser, fail
from autocue.cli.serving import add_listen_options, listen, serve_forever
from autocue.mockllm.options import MAX_SESSIONS, SESSION_TTL

PROG = "autocue simulate"


def parser() -> argparse.ArgumentParser:
    p = CliParser(prog=PROG, description="Stream scenarios as simulated coding sessions (REST + "
                                "SSE, no tool runs). `autocue simulate schema` prints the event JSON Schema.")
    p.add_argument("sources", nargs="+", metavar="SCENARIO_OR_DIR", help="scenario YAML files or directories")
    add_listen_options(p)
    p.add_argument("--speed", type=float, default=1.0,
                   help="multiplier of the scripted times (default 1: as written; 0: no waiting)")
    p.add_argument("--loop", action="store_true", help="replay each session from the start when it ends")
    p.add_argument("--session-ttl", type=float, default=SESSION_TTL, metavar="SECONDS",
                   help=f"forget a session idle this long that no stream follows (default {SESSION_TTL:g}; 0: never)")
    p.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, metavar="N",
                   help=f"keep at most N sessions: a new one replaces the least recently used finished one no "
                        f"stream follows, or is refused (429) (default {MAX_SESSIONS}; 0: no bound)")
    return p


def main(argv: list[str]) -> int:
    if argv[:1] == ["schema"] and not Path("schema").exists():
        from autocue.simulate.schema import event_json_schema

        print(orjson.dumps(event_json_schema(), option=orjson.OPT_INDENT_2).decode())
        return 0
    args = parser().parse_args(argv)
    if args.speed < 0:
        return fail(PROG, f"--speed must be 0 or more (got {args.speed})")
    if args.loop and args.speed == 0:
        return fail(PROG, "--loop needs --speed above 0 (at speed 0 a looping session would stream without end)")
    from autocue.scenario import ScenarioError, load_scenarios

    scenarios = []
    for src in args.sources:
        if not Path(src).exists():
            return fail(PROG, f"{src}: no such scenario file or directory")
        try:
            found = load_scenarios(src)
        except ScenarioError as e:
            return fail(PROG, str(e))
        if not found:
            return fail(PROG, f"{src}: no *.yaml or *.yml scenario in this directory")
        scenarios.extend(found)
    for s in scenarios:
        for w in s.warnings:
            print(f"{PROG}: warning: {w}", file=sys.stderr)
    from autocue.simulate.app import SimState, create_app

    try:
        state = SimState(scenarios, speed=args.speed, loop=args.loop, session_ttl=args.session_ttl,
                         max_sessions=args.max_sessions)
    except ValueError as e:
        return fail(PROG, str(e))
    sock = listen(PROG, args)
    if sock is None:
        return 2

    def announce(url: str, port: int) -> None:
        print(f"autocue simulation server: {url}", flush=True)
        print(f"  scenarios: {', '.join(state.scenarios)}")
        first = next(iter(state.scenarios))
        print(f"  start one: curl -X POST {url}/api/v1/sessions -H 'Content-Type: application/json' "
              f"-d '{{\"scenario\": \"{first}\"}}'")
        print(f"  follow it: curl -N {url}/api/v1/sessions/ID/events   or   autocue view {url}/api/v1/sessions/ID",
              flush=True)

    with sock:
        return serve_forever(PROG, args, sock, create_app(state), announce)
