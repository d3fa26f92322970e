"""Helpers for tests that start background processes: is a pid still alive, and clean-up."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


def kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def inherited_as_under_nohup() -> Iterator[None]:
    """This process as ``nohup cmd &`` or some CI runners start it: SIGINT and SIGQUIT ignored
    (an ignored signal stays ignored across ``exec``) and SIGUSR1 blocked in this thread's mask;
    restored after."""
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGQUIT)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for s, handler in saved.items():
            signal.signal(s, handler)


def signal_status(text: str) -> tuple[int, int]:
    """(ignored, blocked) signal bit masks from a ``/proc/PID/status`` text."""
    fields = dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)
    return int(fields["SigIgn"], 16), int(fields["SigBlk"], 16)
