"""``autocue simulate``: stream scenarios as simulated sessions over REST + SSE (docs/simulate.md).

    autocue simulate SCENARIO_OR_DIR ... [--host 127.0.0.1] [--port 0] [--speed 1] [--loop]
    autocue simulate schema             print the event JSON Schema

The first line printed is the bound URL (``autocue simulation server: http://127.0.0.1:PORT``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, cast

import orjson

from autocue.cli.args import fail

PROG = "autocue simulate"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Stream scenarios as simulated coding sessions (REST + "
                                "SSE, no tool runs). `autocue simulate schema` prints the event JSON Schema.")
    p.add_argument("sources", nargs="+", metavar="SCENARIO_OR_DIR", help="scenario YAML files or directories")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="multiplier of the scripted times (default 1: as written; 0: no waiting)")
    p.add_argument("--loop", action="store_true", help="replay each session from the start when it ends")
    p.add_argument("--log-level", default="warning", help="uvicorn log level (default warning)")
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
    from autocue.cli.serve import bind_problem
    from autocue.mockllm.server import uvicorn_config
    from autocue.mockllm.sockets import bind_socket
    from autocue.simulate.app import SimState, create_app

    try:
        state = SimState(scenarios, speed=args.speed, loop=args.loop)
    except ValueError as e:
        return fail(PROG, str(e))
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as e:
        return fail(PROG, bind_problem(args.host, args.port, e))
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{sock.getsockname()[1]}"
    print(f"autocue simulation server: {url}", flush=True)
    print(f"  scenarios: {', '.join(state.scenarios)}")
    print(f"  start one: curl -X POST {url}/api/v1/sessions -d '{{\"scenario\": \"{next(iter(state.scenarios))}\"}}'")
    print(f"  follow it: curl -N {url}/api/v1/sessions/ID/events   or   autocue view {url}/api/v1/sessions/ID",
          flush=True)
    import uvicorn

    server = uvicorn.Server(uvicorn_config(cast(Any, create_app(state)), args.log_level))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
