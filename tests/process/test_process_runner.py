"""``autocue.process.run_process``: own process group, a bounded stop and a bounded drain."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

import pytest
from proc_helpers import alive, gone_within, inherited_as_under_nohup, kill_quietly, signal_status

from autocue.llm.abort import AbortController
from autocue.process import capture, capture_sync, run_process, run_process_sync


async def test_a_timeout_kills_the_whole_group_and_returns_at_once() -> None:
    out: list[bytes] = []
    t0 = time.monotonic()
    r = await run_process(["sh", "-c", "sleep 5 & echo $!; sleep 5"], on_stdout=out.append, timeout=0.3)
    took = time.monotonic() - t0
    assert r.stopped == "timeout" and r.code < 0
    assert took < 2.0, took
    background = int(b"".join(out))
    assert gone_within(background, 2.0), "the background child outlived the stop"


async def test_term_first_then_kill_after_the_grace() -> None:
    # the whole group ignores SIGTERM: SIGKILL follows after kill_grace
    out: list[bytes] = []
    t0 = time.monotonic()
    r = await run_process(
        ["sh", "-c", "trap '' TERM; sleep 5 & echo $!; sleep 5"], on_stdout=out.append, timeout=0.2, kill_grace=0.3
    )
    took = time.monotonic() - t0
    assert r.stopped == "timeout" and 0.45 < took < 2.5, took
    assert gone_within(int(b"".join(out)), 2.0)


async def test_a_grandchild_holding_the_pipe_does_not_keep_the_caller_waiting() -> None:
    out: list[bytes] = []
    t0 = time.monotonic()
    r = await run_process(["sh", "-c", "sleep 5 & echo $!"], on_stdout=out.append, drain_timeout=0.3)
    took = time.monotonic() - t0
    background = int(b"".join(out))
    try:
        assert r.code == 0 and r.stopped is None and r.drained is False
        assert took < 2.0, took
        assert alive(background), "a program that ended by itself keeps its background children"
    finally:
        kill_quietly(background)


async def test_an_abort_stops_it_and_separate_streams_and_input_work() -> None:
    ctrl = AbortController()
    out: list[bytes] = []
    err: list[bytes] = []
    code = "import sys; d = sys.stdin.read(); print(d.upper()); sys.stderr.write('e'); sys.stdout.flush(); " \
           "import time; time.sleep(10)"

    def on_out(b: bytes) -> None:
        out.append(b)
        ctrl.abort()

    t0 = time.monotonic()
    r = await run_process([sys.executable, "-c", code], input=b"abc", on_stdout=on_out, on_stderr=err.append,
                          signal=ctrl.signal)
    assert r.stopped == "abort" and time.monotonic() - t0 < 5
    assert b"".join(out).strip() == b"ABC"


async def test_all_output_of_a_normal_run_arrives() -> None:
    out: list[bytes] = []
    r = await run_process(["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; exit 4"], on_stdout=out.append)
    assert r.code == 4 and r.drained and len(b"".join(out)) == 300000


async def test_a_program_that_cannot_start_raises_oserror() -> None:
    with pytest.raises(OSError):
        await run_process(["/definitely/not/here"])


async def test_on_start_sees_the_group_before_anything_is_awaited() -> None:
    seen: list[int] = []
    task = asyncio.ensure_future(run_process(["sh", "-c", "sleep 5"], on_start=seen.append))
    await asyncio.sleep(0)  # one step: the spawn and on_start happen before the first await
    assert len(seen) == 1 and alive(seen[0])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone_within(seen[0], 2.0)


async def test_end_group_ends_what_the_program_left_running() -> None:
    out: list[bytes] = []
    r = await run_process(["sh", "-c", "sleep 5 & echo $!"], on_stdout=out.append, drain_timeout=0.2, end_group=True)
    assert r.code == 0 and r.stopped is None
    assert gone_within(int(b"".join(out)), 2.0), "end_group left the background child running"


async def test_a_cancelled_caller_gives_the_group_its_term_grace(tmp_path: Path) -> None:
    # the program saves its state on SIGTERM: with kill_grace a cancellation lets it
    marker = tmp_path / "saved"
    script = f"trap 'echo saved > {marker}; exit 0' TERM; echo up; while :; do sleep 0.05; done"
    up = asyncio.Event()
    task = asyncio.ensure_future(run_process(["sh", "-c", script], on_stdout=lambda _b: up.set(), kill_grace=2.0))
    await asyncio.wait_for(up.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert marker.read_text().strip() == "saved"


async def test_a_cancelled_caller_kills_a_group_that_ignores_term_after_the_grace() -> None:
    out: list[bytes] = []
    up = asyncio.Event()

    def on_out(b: bytes) -> None:
        out.append(b)
        up.set()

    task = asyncio.ensure_future(
        run_process(["sh", "-c", "trap '' TERM; sleep 5 & echo $!; sleep 5"], on_stdout=on_out, kill_grace=0.3)
    )
    await asyncio.wait_for(up.wait(), 5)
    t0 = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 0.25 < time.monotonic() - t0 < 2.5
    assert gone_within(int(b"".join(out)), 2.0)


def test_run_process_sync_outside_an_event_loop() -> None:
    out: list[bytes] = []
    r = run_process_sync(["sh", "-c", "echo out; echo err >&2; exit 3"], on_stdout=out.append, merge_stderr=True)
    assert r.code == 3 and b"".join(out).split() == [b"out", b"err"]


async def test_run_process_sync_inside_a_running_event_loop_and_its_timeout() -> None:
    t0 = time.monotonic()
    r = run_process_sync(["sh", "-c", "sleep 5"], timeout=0.2)
    assert r.stopped == "timeout" and time.monotonic() - t0 < 2.0


async def test_capture_collects_both_streams_decoded() -> None:
    r = await capture(["sh", "-c", "printf 'out\\377'; echo err >&2; exit 2"])
    assert (r.code, r.stopped, r.drained) == (2, None, True)
    assert r.stdout == "out\ufffd" and r.stderr == "err\n"


def test_capture_sync_stops_the_group_at_its_timeout() -> None:
    t0 = time.monotonic()
    r = capture_sync(["sh", "-c", "echo before; sleep 30"], timeout=0.3)
    assert r.stopped == "timeout" and r.stdout == "before\n" and time.monotonic() - t0 < 5


@pytest.mark.parametrize("terminal", [None, (80, 24)], ids=["pipes", "terminal"])
async def test_the_program_gets_default_signal_handling_whatever_autocue_inherited(
        terminal: tuple[int, int] | None) -> None:
    out: list[bytes] = []
    with inherited_as_under_nohup():
        r = await run_process(["cat", "/proc/self/status"], on_stdout=out.append, terminal=terminal, timeout=20)
    ignored, blocked = signal_status(b"".join(out).decode().replace("\r\n", "\n"))
    assert r.code == 0
    assert ignored & (1 << (signal.SIGINT - 1) | 1 << (signal.SIGQUIT - 1)) == 0, hex(ignored)
    assert blocked == 0, hex(blocked)


async def test_ctrl_c_typed_into_a_terminal_interrupts_the_program_under_nohup() -> None:
    with inherited_as_under_nohup():
        t0 = time.monotonic()
        r = await run_process(["sleep", "30"], input=b"\x03", terminal=(80, 24), timeout=20)
    assert r.stopped is None and r.code == -signal.SIGINT and time.monotonic() - t0 < 5
