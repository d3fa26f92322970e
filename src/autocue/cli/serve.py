"""``autocue serve``: run the mock LLM API server on scenarios.

    autocue serve [SCENARIO_OR_DIR ...] [--host 127.0.0.1] [--port 0] [--speed 0]
                  [--strict-tools] [--record-dir DIR] [--profile NAME] [--workspace DIR]
                  [--admin-token TOKEN]

Prints the bound URL (``autocue mock LLM server: http://127.0.0.1:PORT``) and how to point
agents at it, then serves until interrupted. ``--json`` prints one JSON line instead
(``{"url": ..., "port": ..., "scenarios": [...]}``) for scripts that start it.
"""

from __future__ import annotations

import argparse
import os
import sys

import orjson

from autocue.mockllm.app import create_app
from autocue.mockllm.server import bind_socket, uvicorn_config
from autocue.mockllm.sources import ScenarioSourceError
from autocue.mockllm.state import MockState, ServerOptions


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autocue serve", description="Run the mock LLM API server (OpenAI Chat, "
                                "OpenAI Responses, Anthropic Messages, Gemini) on scenarios.")
    p.add_argument("sources", nargs="*", metavar="SCENARIO_OR_DIR", help="scenario YAML files or directories")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
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
    p.add_argument("--json", action="store_true", help="print the bound address as one JSON line")
    p.add_argument("--log-level", default="warning", help="uvicorn log level (default warning)")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.speed < 0:
        print("autocue serve: --speed must be 0 or more", file=sys.stderr)
        return 2
    from pathlib import Path

    options = ServerOptions(speed=args.speed, strict_tools=args.strict_tools,
                            record_dir=Path(args.record_dir) if args.record_dir else None, profile=args.profile,
                            admin_token=args.admin_token or None)
    if args.workspace:
        options.workspace = Path(args.workspace)
    try:
        state = MockState([Path(s) for s in args.sources], options)
    except (ScenarioSourceError, ValueError) as e:
        print(f"autocue serve: {e}", file=sys.stderr)
        return 2
    for p in state.playables.values():
        for w in p.warnings:
            print(f"autocue serve: warning: {p.name}: {w}", file=sys.stderr)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as e:
        print(f"autocue serve: cannot bind {args.host}:{args.port}: {e}", file=sys.stderr)
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
    import uvicorn

    server = uvicorn.Server(uvicorn_config(create_app(state), args.log_level))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
