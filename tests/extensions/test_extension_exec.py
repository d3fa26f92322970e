"""``ExtensionAPI.exec`` (``run_exec``) stops the whole process group and returns in bounded time."""

from __future__ import annotations

import asyncio
import time

from proc_helpers import alive, gone_within, kill_quietly

from autocue.extensions.exec import run_exec
from autocue.llm.abort import AbortController


async def test_a_timeout_returns_promptly_and_kills_background_children() -> None:
    t0 = time.monotonic()
    r = await run_exec("sh", ["-c", "sleep 5 & echo $!; sleep 5"], timeout=0.3)
    took = time.monotonic() - t0
    assert r.killed is True
    assert took < 2.0, f"exec took {took:.1f}s after a 0.3s timeout"
    assert gone_within(int(r.stdout), 2.0), "the background sleep survived the timeout"


async def test_an_abort_returns_promptly() -> None:
    ctrl = AbortController()
    asyncio.get_running_loop().call_later(0.2, ctrl.abort)
    t0 = time.monotonic()
    r = await run_exec("sh", ["-c", "sleep 5 & sleep 5"], signal=ctrl.signal)
    assert r.killed is True and time.monotonic() - t0 < 2.0


async def test_a_finished_program_whose_child_holds_the_pipes_returns() -> None:
    t0 = time.monotonic()
    r = await run_exec("sh", ["-c", "echo hi; sleep 5 & echo $! >&2"])
    took = time.monotonic() - t0
    pid = int(r.stderr)
    try:
        assert r.code == 0 and r.killed is False and r.stdout == "hi\n"
        assert took < 2.0, took
        assert alive(pid)
    finally:
        kill_quietly(pid)
