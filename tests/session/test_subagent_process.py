"""``ProcessChild`` on the process runner: its RPC over stdin/stdout, a child that cannot start,
and a close that stops a child which ignores both the end of its stdin and SIGTERM (real processes)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from proc_helpers import gone_within, kill_quietly

import autocue.session.subagent_process as subagent_process
from autocue.llm.types import Model
from autocue.session.subagent_process import ProcessChild

# a stand-in for `autocue --mode rpc`: answers each command, then (stdin closed) lingers ignoring
# SIGTERM, with a background grandchild whose pid it writes to grandchild.pid
STUBBORN = """\
import json, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
bg = subprocess.Popen(["sleep", "60"])
open("grandchild.pid", "w").write(str(bg.pid))
for line in sys.stdin:
    msg = json.loads(line)
    data = {"sessionFile": "child.jsonl", "echo": msg["type"]}
    print(json.dumps({"type": "response", "id": msg["id"], "success": True, "data": data}), flush=True)
time.sleep(60)
"""


async def _start(tmp_path: Path, command: list[str]) -> ProcessChild:
    return await ProcessChild.start(
        "t1", command, cwd=str(tmp_path), model=Model("m", "scripted", "acme"), tools=["read"],
        system_prompt="sp", parent_file=None, session_dir=None, on_progress=lambda _name: None,
    )


async def test_commands_are_answered_and_close_stops_a_stubborn_child_with_its_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(subagent_process, "_CLOSE_GRACE", 0.3)
    monkeypatch.setattr(subagent_process, "_KILL_GRACE", 0.3)
    child = await _start(tmp_path, [sys.executable, "-c", STUBBORN])
    grandchild = 0
    try:
        assert child.session_file == "child.jsonl"
        assert (await child.command({"type": "get_state"}))["echo"] == "get_state"
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        t0 = time.monotonic()
        await child.close()  # stdin closed: 0.3 s; SIGTERM ignored: SIGKILL after 0.3 s more
        assert 0.5 < time.monotonic() - t0 < 5
        assert gone_within(grandchild, 2.0), "the child's grandchild outlived close()"
        with pytest.raises(OSError, match="has exited"):
            await child.command({"type": "get_state"})
    finally:
        if grandchild:
            kill_quietly(grandchild)


async def test_a_child_that_exits_fails_what_waits_for_it_with_its_last_stderr_line(tmp_path: Path) -> None:
    script = "import sys; sys.stdin.readline(); sys.stderr.write('no such model\\n'); sys.exit(3)"
    with pytest.raises(OSError, match="the child process exited: no such model"):
        await _start(tmp_path, [sys.executable, "-c", script])


async def test_a_child_that_cannot_start_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        await _start(tmp_path, ["/definitely/not/here"])
