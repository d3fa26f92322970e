"""RPC ``bash`` runs through the bash tool's runner: whole lines kept, full output saved, group
killed on ``abort_bash`` with the output so far returned."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path
from typing import Any

from proc_helpers import gone_within
from session_helpers import make_session

from autocue.modes.rpc_mode import RpcServer


def _responses(out: io.BytesIO) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    return {r["id"]: r for r in rows if r.get("type") == "response" and "id" in r}


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


async def test_long_output_keeps_whole_lines_and_the_full_output(tmp_path: Path) -> None:
    session, _ = make_session(cwd=tmp_path)
    out = io.BytesIO()
    server = RpcServer(session, None, None, out)
    await server.handle_line(_line({"id": "b", "type": "bash", "command": "seq 1 100000"}))
    r = _responses(out)["b"]
    assert r["success"] is True, r
    data = r["data"]
    assert data["exitCode"] == 0 and data["cancelled"] is False and data["truncated"] is True
    lines = data["output"].splitlines()
    assert lines[-1] == "100000"
    assert int(lines[0]) + len(lines) - 1 == 100000, "the tail starts with a whole line"
    full = Path(data["fullOutputPath"]).read_text()
    assert full == "".join(f"{i}\n" for i in range(1, 100001))
    last = session.messages[-1]
    assert last.role == "bashExecution" and last.full_output_path == data["fullOutputPath"]
    await session.dispose()


async def test_abort_bash_kills_the_group_and_keeps_the_output(tmp_path: Path) -> None:
    session, _ = make_session(cwd=tmp_path)
    out = io.BytesIO()
    server = RpcServer(session, None, None, out)
    cmd = "echo started; sleep 5 & echo $!; sleep 5"
    task = asyncio.ensure_future(server.handle_line(_line({"id": "b", "type": "bash", "command": cmd})))
    await asyncio.sleep(0.4)
    t0 = time.monotonic()
    await server.handle_line(_line({"id": "a", "type": "abort_bash"}))
    await asyncio.wait_for(task, 3)
    took = time.monotonic() - t0
    r = _responses(out)
    assert r["a"]["success"] is True
    data = r["b"]["data"]
    assert took < 2.0, took
    assert data["cancelled"] is True and data["exitCode"] is None
    started, pid = data["output"].split()
    assert started == "started"
    assert gone_within(int(pid), 2.0), "the background child survived abort_bash"
    await session.dispose()


async def test_a_failing_command_reports_its_exit_code(tmp_path: Path) -> None:
    session, _ = make_session(cwd=tmp_path)
    out = io.BytesIO()
    server = RpcServer(session, None, None, out)
    await server.handle_line(_line({"id": "b", "type": "bash", "command": "echo oops >&2; exit 3"}))
    data = _responses(out)["b"]["data"]
    assert data == {"output": "oops\n", "exitCode": 3, "cancelled": False, "truncated": False}
    await session.dispose()
