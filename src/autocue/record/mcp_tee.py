"""A JSON-RPC tee for a stdio MCP server: ``python -m autocue.record.mcp_tee --name NAME -- COMMAND ...``.

Starts ``COMMAND`` and relays the agent's stdin to it and its stdout back, line by line (MCP's
stdio transport is newline-delimited JSON-RPC), unchanged; every line that is JSON is also
appended to the log named by ``$AUTOCUE_MCP_TEE_LOG`` (``--log FILE`` overrides) as
``{"server", "dir": "in"|"out", "msg"}`` (``in``: agent → server). stderr is the server's own.
It exits with the server's status; without a log it only relays.

``autocue record --agent`` sets ``AUTOCUE_MCP_TEE_LOG`` for the agent (and so for the MCP
servers it starts), and ``wrap_servers`` rewrites an ``mcpServers`` config (Claude Code's
``--mcp-config``, ``.mcp.json``) so each stdio server runs behind the tee. ``read_calls`` pairs
the logged requests and responses into the calls a recording keeps.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import orjson

KEPT_METHODS = ("tools/call", "resources/read", "prompts/get")
"""Requests a recording keeps (with their results); the handshake and listings are not kept."""


def wrap_servers(config: dict[str, Any], python: str = sys.executable) -> dict[str, Any]:
    """An ``{"mcpServers": {name: {command, args, env}}}`` config with each stdio server behind the tee."""
    out = dict(config)
    servers = {}
    for name, spec in (config.get("mcpServers") or {}).items():
        if isinstance(spec, dict) and spec.get("command") and spec.get("type", "stdio") == "stdio":
            spec = {**spec, "command": python,
                    "args": ["-m", "autocue.record.mcp_tee", "--name", name, "--", spec["command"],
                             *[str(a) for a in spec.get("args") or []]]}
        servers[name] = spec
    out["mcpServers"] = servers
    return out


def _pump(src: IO[bytes], dst: IO[bytes], log: IO[bytes] | None, lock: threading.Lock, name: str,
          direction: str) -> None:
    try:
        for line in iter(src.readline, b""):
            dst.write(line)
            dst.flush()
            if log is not None and line.strip():
                try:
                    msg = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                with lock:
                    log.write(orjson.dumps({"server": name, "dir": direction, "msg": msg}) + b"\n")
                    log.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass
    finally:
        if direction == "in":
            try:
                dst.close()
            except OSError:
                pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m autocue.record.mcp_tee",
                                description="Relay a stdio MCP server and log its JSON-RPC traffic.")
    p.add_argument("--name", default="mcp", help="the server's name in the log")
    p.add_argument("--log", default=None, help="the log file (default $AUTOCUE_MCP_TEE_LOG)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    args = p.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        print("mcp_tee: give the server's command after --", file=sys.stderr)
        return 2
    log_path = args.log or os.environ.get("AUTOCUE_MCP_TEE_LOG")
    log = Path(log_path).open("ab") if log_path else None  # noqa: SIM115 - closed below
    try:
        try:
            child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as e:
            print(f"mcp_tee: cannot start {cmd[0]!r}: {e.strerror or e}", file=sys.stderr)
            return 127
        assert child.stdin is not None and child.stdout is not None
        lock = threading.Lock()
        t_in = threading.Thread(target=_pump, args=(sys.stdin.buffer, child.stdin, log, lock, args.name, "in"),
                                daemon=True)
        t_in.start()
        _pump(child.stdout, sys.stdout.buffer, log, lock, args.name, "out")
        return child.wait()
    finally:
        if log is not None:
            log.close()


def read_calls(log: Path, start: int = 0, end: int | None = None) -> list[dict[str, Any]]:
    """The kept calls of a tee log (its bytes ``start:end``), in order: ``{server, method, params, result | error}``."""
    try:
        lines = log.read_bytes()[start:end].splitlines()
    except OSError:
        return []
    pending: dict[tuple[str, Any], dict[str, Any]] = {}
    calls: list[dict[str, Any]] = []
    for line in lines:
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        msg = rec.get("msg")
        if not isinstance(msg, dict) or "id" not in msg:
            continue
        key = (rec.get("server"), msg["id"])
        if rec.get("dir") == "in" and msg.get("method") in KEPT_METHODS:
            call = {"server": rec.get("server"), "method": msg["method"], "params": msg.get("params")}
            pending[key] = call
            calls.append(call)
        elif rec.get("dir") == "out" and key in pending:
            call = pending.pop(key)
            if "error" in msg:
                call["error"] = msg["error"]
            else:
                call["result"] = msg.get("result")
    return calls


if __name__ == "__main__":
    raise SystemExit(main())
