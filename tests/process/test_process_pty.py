"""The pseudo-terminal option of the one runner: ``run_process(terminal=...)`` and ``spawn``
(real programs, real ptys)."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from proc_helpers import gone_within, kill_quietly

from autocue.llm.abort import AbortController
from autocue.process import run_process, spawn

TTY_REPORT = ("import os; print(os.isatty(0), os.isatty(1), os.isatty(2), os.tcgetpgrp(0) == os.getpgrp(), "
              "tuple(os.get_terminal_size()))")
# a background grandchild that ignores SIGHUP (the pty's hang-up at the leader's exit cannot end it):
# only a signal to the whole group does
GRANDCHILD = "trap '' HUP; sleep 30 & echo pid=$!; "


def _grandchild(out: list[bytes]) -> int:
    text = b"".join(out).decode()
    return int(text.split("pid=", 1)[1].split()[0])


async def test_the_program_runs_in_a_terminal_that_is_its_controlling_terminal() -> None:
    out: list[bytes] = []
    r = await run_process([sys.executable, "-c", TTY_REPORT], on_stdout=out.append, terminal=(100, 30))
    assert r.code == 0 and r.stopped is None and r.drained
    assert b"".join(out).decode().split("\r\n")[0] == "True True True True (100, 30)"


async def test_without_a_terminal_the_program_has_none() -> None:
    out: list[bytes] = []
    code = "import os; print(os.isatty(0), os.isatty(1))"
    r = await run_process([sys.executable, "-c", code], on_stdout=out.append)
    assert r.code == 0 and b"".join(out).strip() == b"False False"


async def test_input_is_typed_into_the_terminal_and_ctrl_c_reaches_its_foreground_group() -> None:
    out: list[bytes] = []
    r = await run_process([sys.executable, "-c", "print(input().upper())"], input=b"hello\n", on_stdout=out.append,
                          terminal=(80, 24), timeout=20)
    assert r.code == 0 and b"".join(out).split(b"\r\n")[:2] == [b"hello", b"HELLO"]  # the echo, then the answer
    r = await run_process(["sleep", "30"], input=b"\x03", terminal=(80, 24), timeout=20)
    assert r.stopped is None and r.code == -signal.SIGINT


async def test_all_output_of_a_program_in_a_terminal_arrives() -> None:
    out: list[bytes] = []
    r = await run_process(["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; exit 4"], on_stdout=out.append,
                          terminal=(80, 24))
    assert r.code == 4 and r.drained and len(b"".join(out)) == 300000


async def test_a_timeout_kills_the_whole_group_in_a_terminal_grandchild_included() -> None:
    out: list[bytes] = []
    t0 = time.monotonic()
    r = await run_process(["sh", "-c", GRANDCHILD + "sleep 30"], on_stdout=out.append, terminal=(80, 24), timeout=0.5)
    background = _grandchild(out)
    try:
        assert r.stopped == "timeout" and r.code == -signal.SIGKILL
        assert time.monotonic() - t0 < 5
        assert gone_within(background, 2.0), "the grandchild outlived the stop"
    finally:
        kill_quietly(background)


async def test_an_abort_terms_then_kills_the_group_in_a_terminal_grandchild_included() -> None:
    ctrl = AbortController()
    out: list[bytes] = []

    def on_out(b: bytes) -> None:
        out.append(b)
        if b"pid=" in b"".join(out):
            ctrl.abort()

    t0 = time.monotonic()
    r = await run_process(["sh", "-c", "trap '' TERM; " + GRANDCHILD + "sleep 30"], on_stdout=on_out,
                          terminal=(80, 24), signal=ctrl.signal, kill_grace=0.3, timeout=20)
    took = time.monotonic() - t0
    background = _grandchild(out)
    try:
        assert r.stopped == "abort" and r.code == -signal.SIGKILL  # TERM was ignored: KILL after the grace
        assert 0.25 < took < 5, took
        assert gone_within(background, 2.0), "the grandchild outlived the stop"
    finally:
        kill_quietly(background)


async def test_input_from_an_async_iterable_is_written_as_it_comes_and_stdin_closes_at_its_end() -> None:
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()
    out: list[bytes] = []

    async def feed() -> AsyncIterator[bytes]:
        while (line := await lines.get()) is not None:
            yield line

    def on_out(b: bytes) -> None:
        out.append(b)
        if b"".join(out).count(b"\n") == 1:
            lines.put_nowait(b"second\n")  # written only after the answer to the first
            lines.put_nowait(None)

    code = "import sys\nfor line in sys.stdin:\n    print(line.strip().upper(), flush=True)\nprint('eof')"
    lines.put_nowait(b"first\n")
    r = await run_process([sys.executable, "-c", code], input=feed(), on_stdout=on_out, timeout=20)
    assert r.code == 0 and r.stopped is None
    assert b"".join(out).split() == [b"FIRST", b"SECOND", b"eof"]


async def test_an_output_callback_that_raises_ends_the_run_and_its_group() -> None:
    seen: list[int] = []

    def on_out(_b: bytes) -> None:
        raise ValueError("bad chunk")

    t0 = time.monotonic()
    with pytest.raises(ValueError, match="bad chunk"):
        await run_process(["sh", "-c", "echo hi; sleep 30"], on_stdout=on_out, on_start=seen.append, timeout=20)
    assert time.monotonic() - t0 < 3  # at once: not when the program exits or the timeout stops it
    assert gone_within(seen[0], 2.0)


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_program_that_cannot_start_in_a_terminal_raises_oserror_and_leaks_no_descriptor(tmp_path: Path) -> None:
    # Ten failed spawns of each kind: a leak shows as 20+ more descriptors; others of this
    # process (a worker's earlier tests) may close meanwhile, so the count must not grow.
    gc.collect()
    before = _open_fds()
    for _ in range(10):
        with pytest.raises(OSError):
            spawn(["/definitely/not/here"], terminal=(80, 24))
        with pytest.raises(OSError):
            spawn(["true"], cwd=tmp_path / "missing", terminal=(80, 24))
    gc.collect()
    assert _open_fds() <= before
