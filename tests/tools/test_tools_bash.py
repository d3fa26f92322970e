"""The bash tool with real processes: output, exit codes, truncation, timeout and abort
killing the whole process group, streaming updates."""

from __future__ import annotations

import asyncio
import os
import signal as signals
from pathlib import Path

import pytest
from builtin_tool_helpers import make, pid_alive, run

from autocue.agent import ToolResult
from autocue.llm.abort import AbortController
from autocue.tools import ToolError, create_bash_tool


async def _gone(pid: int) -> bool:
    """Poll (bounded) until ``pid`` is gone; SIGKILL is asynchronous."""
    for _ in range(500):
        if not pid_alive(pid):
            return True
        await asyncio.sleep(0.01)
    return False


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signals.SIGKILL)
    except ProcessLookupError:
        pass


async def test_merged_output_in_cwd(tmp_path: Path) -> None:
    r = await run(make("bash", tmp_path), command="pwd; echo out; echo err >&2; echo out2")
    assert r.text_content == f"{tmp_path}\nout\nerr\nout2\n"
    assert r.details is None


async def test_nonzero_exit_raises_with_output_and_code(tmp_path: Path) -> None:
    tool = make("bash", tmp_path)
    with pytest.raises(ToolError) as e:
        await run(tool, command="echo partial; exit 3")
    assert str(e.value) == "partial\n\n\nCommand exited with code 3"
    with pytest.raises(ToolError) as e:
        await run(tool, command="false")
    assert str(e.value) == "(no output)\n\nCommand exited with code 1"


async def test_no_output_and_signal_death(tmp_path: Path) -> None:
    tool = make("bash", tmp_path)
    assert (await run(tool, command="true")).text_content == "(no output)"
    with pytest.raises(ToolError, match=r"^Command was killed by signal SIGKILL$"):
        await run(tool, command="kill -9 $$")


async def test_missing_working_directory(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Working directory does not exist"):
        await run(make("bash", tmp_path / "gone"), command="true")


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    tool = make("bash", tmp_path)
    with pytest.raises(ToolError) as e:
        await run(tool, command="sleep 60 & echo $! > child.pid; echo waiting; sleep 60", timeout=1)
    assert str(e.value) == "waiting\n\n\nCommand timed out after 1 seconds"
    child = int((tmp_path / "child.pid").read_text())
    try:
        assert await _gone(child), "background child survived the timeout"
    finally:
        _kill(child)


async def test_abort_while_running_kills_the_group(tmp_path: Path) -> None:
    tool = make("bash", tmp_path)
    controller = AbortController()
    updates: list[ToolResult] = []
    task = asyncio.ensure_future(
        run(tool, signal=controller.signal, updates=updates, command="sleep 60 & echo $!; sleep 60")
    )
    for _ in range(1000):  # wait for the streamed pid (bounded)
        if updates and updates[-1].text_content.strip():
            break
        await asyncio.sleep(0.01)
    child = int(updates[-1].text_content.strip())
    assert pid_alive(child)
    controller.abort()
    with pytest.raises(ToolError) as e:
        await task
    try:
        assert str(e.value) == f"{child}\n\n\nCommand aborted"
        assert await _gone(child), "background child survived the abort"
    finally:
        _kill(child)


async def test_already_aborted_never_starts(tmp_path: Path) -> None:
    c = AbortController()
    c.abort()
    with pytest.raises(ToolError, match="Command aborted"):
        await run(make("bash", tmp_path), signal=c.signal, command="touch ran")
    assert not (tmp_path / "ran").exists()


async def test_cancelling_the_task_kills_the_group(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    task = asyncio.ensure_future(run(make("bash", tmp_path), updates=updates, command="sleep 60 & echo $!; sleep 60"))
    for _ in range(1000):
        if updates and updates[-1].text_content.strip():
            break
        await asyncio.sleep(0.01)
    child = int(updates[-1].text_content.strip())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    try:
        assert await _gone(child)
    finally:
        _kill(child)


async def test_updates_stream_partial_output(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    # the second line is only written after the first was seen by the tool (fifo handshake)
    cmd = "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second"
    task = asyncio.ensure_future(run(make("bash", tmp_path), updates=updates, command=cmd))
    for _ in range(1000):
        if updates:
            break
        await asyncio.sleep(0.01)
    assert updates[0].text_content == "first\n"
    (tmp_path / "go").touch()
    r = await task
    assert r.text_content == "first\nsecond\n"
    assert updates[-1].text_content == "first\nsecond\n"


async def test_large_output_keeps_tail_and_saves_full_output(tmp_path: Path) -> None:
    pad = "x" * 40
    r = await run(make("bash", tmp_path), command=f"seq 1 20000 | sed 's/$/ {pad}/'")
    body, notice = r.text_content.rsplit("\n\n", 1)
    assert body.endswith(f"19999 {pad}\n20000 {pad}\n")
    assert len(body.encode()) <= 50 * 1024
    full_path = r.details["fullOutputPath"]
    try:
        first_shown = int(body.split(" ", 1)[0])
        assert notice == f"[Showing lines {first_shown}-20001 of 20001 (50.0KB limit). Full output: {full_path}]"
        assert Path(full_path).read_text() == "".join(f"{i} {pad}\n" for i in range(1, 20001))
        assert r.details["truncation"]["truncatedBy"] == "bytes"
    finally:
        os.unlink(full_path)


async def test_many_short_lines_cut_by_line_count(tmp_path: Path) -> None:
    r = await run(make("bash", tmp_path), command="seq 1 3000")
    body, notice = r.text_content.rsplit("\n\n", 1)
    full_path = r.details["fullOutputPath"]
    try:
        assert body.split("\n")[0] == "1002" and len(body.split("\n")) == 2000
        assert notice == f"[Showing lines 1002-3001 of 3001. Full output: {full_path}]"
        assert Path(full_path).read_text() == "".join(f"{i}\n" for i in range(1, 3001))
    finally:
        os.unlink(full_path)


async def test_background_process_holding_output_does_not_block(tmp_path: Path) -> None:
    r = await run(make("bash", tmp_path), command="sleep 30 & echo $! > bg.pid; echo done")
    pid = int((tmp_path / "bg.pid").read_text())
    try:
        assert r.text_content == "done\n"
        assert pid_alive(pid)  # returned while the background process still ran (and held the pipe)
    finally:
        _kill(pid)


async def test_options_prefix_env_and_shell(tmp_path: Path) -> None:
    tool = create_bash_tool(tmp_path, command_prefix="set -o pipefail", env={"PATH": os.environ["PATH"], "ZED": "z"})
    assert (await run(tool, command="echo $ZED-$HOME")).text_content == "z-\n"
    with pytest.raises(ToolError, match="exited with code 1"):
        await run(tool, command="false | cat")


def test_rolling_tail_never_shows_a_cut_line() -> None:
    from autocue.tools.bash import _Output

    out = _Output()
    line = b"y" * 99 + b"\n"
    data = line * 1100  # 110,000 bytes in two uneven chunks, as a pipe may deliver them
    out.add(data[:61_000])
    out.add(data[61_000:])
    try:
        text, details = out.render()
        body = text.rsplit("\n\n", 1)[0]
        assert all(x == "y" * 99 for x in body.split("\n")[:-1])
        assert details is not None and details["fullOutputPath"]
        assert Path(details["fullOutputPath"]).read_bytes() == data
    finally:
        out.close()
        if out.path:
            os.unlink(out.path)


async def test_updates_are_throttled_but_the_last_shows_everything(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    tool = create_bash_tool(tmp_path, update_interval=60)
    r = await run(tool, updates=updates, command="for i in 1 2 3 4; do echo $i; sleep 0.02; done")
    assert r.text_content == "1\n2\n3\n4\n"
    assert [u.text_content for u in updates] == ["1\n", "1\n2\n3\n4\n"]
