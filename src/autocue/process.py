"""Run a program in its own process group, stream its output, and stop it for certain.

One mechanism for every place autocue runs a program (the ``bash`` tool, RPC ``bash``,
``ExtensionAPI.exec``): ``await run_process(argv, on_stdout=..., timeout=..., signal=...)``.

- The program starts in a new session (``start_new_session``), so it leads its own process
  group; a stop (``timeout`` seconds passed, ``signal`` aborted, or the awaiting task
  cancelled) signals the **whole group**, so background children die too. With
  ``kill_grace`` > 0 the group gets SIGTERM first and SIGKILL after ``kill_grace`` seconds
  (at once when 0, and always at once on cancellation).
- The exit is watched on a pidfd (Linux; a waiter thread elsewhere), not through the pipes:
  once the program has exited, what is left in its pipes is read for at most
  ``drain_timeout`` seconds, so a grandchild that holds a pipe open cannot keep the caller
  waiting (``ProcessResult.drained`` is then false; such a process keeps running unless the
  run was stopped, in which case the group is SIGKILLed before returning).
- Output arrives in chunks through ``on_stdout`` / ``on_stderr`` (``merge_stderr`` sends both
  through ``on_stdout`` in arrival order); ``input`` is written to stdin, which is closed after.

A program that cannot be started raises ``OSError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Literal

from autocue.llm.abort import AbortSignal

StopReason = Literal["timeout", "abort"]
OnChunk = Callable[[bytes], None]

_READ_SIZE = 64 * 1024


@dataclass(slots=True, frozen=True)
class ProcessResult:
    """How a run ended: ``code`` is the exit code (negative: killed by that signal);
    ``stopped`` says why autocue stopped it (None: it ended by itself); ``drained`` is false
    when reading stopped because something still held the output open after the exit."""

    code: int
    stopped: StopReason | None
    drained: bool


def kill_group(pid: int, sig: int = signals.SIGKILL) -> None:
    """Send ``sig`` to the process group led by ``pid`` (to ``pid`` alone if it has none)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def exit_future(proc: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop) -> asyncio.Future[int]:
    """A future for the exit code: a pidfd watched by the loop (Linux), else a waiter thread."""
    fut: asyncio.Future[int] = loop.create_future()

    def settle(code: int) -> None:
        if not fut.done():
            fut.set_result(code)

    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):

        def wait_thread() -> None:
            code = proc.wait()
            loop.call_soon_threadsafe(settle, code)

        threading.Thread(target=wait_thread, name=f"autocue-wait-{proc.pid}", daemon=True).start()
        return fut

    def ready() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        settle(proc.wait())  # exited: reaping does not block

    loop.add_reader(pidfd, ready)

    def cleanup(f: asyncio.Future[int]) -> None:
        if f.cancelled():
            loop.remove_reader(pidfd)
            os.close(pidfd)

    fut.add_done_callback(cleanup)
    return fut


def _write_input(pipe: IO[bytes], data: bytes) -> None:
    def run() -> None:
        with contextlib.suppress(OSError):
            pipe.write(data)
        with contextlib.suppress(OSError):
            pipe.close()

    threading.Thread(target=run, name="autocue-stdin", daemon=True).start()


async def _pump(reader: asyncio.StreamReader, on_chunk: OnChunk | None) -> None:
    while True:
        data = await reader.read(_READ_SIZE)
        if not data:
            return
        if on_chunk is not None:
            on_chunk(data)


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    on_stdout: OnChunk | None = None,
    on_stderr: OnChunk | None = None,
    merge_stderr: bool = False,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    kill_grace: float = 0.0,
    drain_timeout: float = 0.5,
) -> ProcessResult:
    """Run ``argv`` to its end or until stopped; see the module docstring."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        start_new_session=True,
    )
    loop = asyncio.get_running_loop()
    exited = exit_future(proc, loop)
    transports: list[asyncio.BaseTransport] = []
    pumps: list[asyncio.Future[None]] = []
    stopped: list[StopReason] = []
    timers: list[asyncio.TimerHandle] = []
    remove_listener: Callable[[], None] = _noop

    def stop(reason: StopReason) -> None:
        if stopped or exited.done():
            return
        stopped.append(reason)
        if kill_grace > 0:
            kill_group(proc.pid, signals.SIGTERM)
            timers.append(loop.call_later(kill_grace, kill_group, proc.pid, signals.SIGKILL))
        else:
            kill_group(proc.pid)

    try:
        for pipe, on_chunk in ((proc.stdout, on_stdout), (proc.stderr, on_stderr)):
            if pipe is None:
                continue
            reader = asyncio.StreamReader(limit=_READ_SIZE * 4)
            transport, _ = await loop.connect_read_pipe(
                lambda reader=reader: asyncio.StreamReaderProtocol(reader), pipe  # type: ignore[misc]
            )
            transports.append(transport)
            pumps.append(asyncio.ensure_future(_pump(reader, on_chunk)))
        if input is not None and proc.stdin is not None:
            _write_input(proc.stdin, input)
        if signal is not None:
            remove_listener = signal.add_listener(lambda: stop("abort"))
        if timeout is not None and timeout > 0:
            timers.append(loop.call_later(float(timeout), stop, "timeout"))
        code = await asyncio.shield(exited)
        drained = True
        if pumps:
            _, pending = await asyncio.wait(pumps, timeout=drain_timeout)
            drained = not pending
        if stopped:
            kill_group(proc.pid)  # nothing of a stopped run outlives it
        for p in pumps:
            if not p.done():
                p.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await p
        return ProcessResult(code, stopped[0] if stopped else None, drained)
    except BaseException:
        kill_group(proc.pid)
        for p in pumps:
            p.cancel()
        if not exited.done():
            proc.wait()  # the group was just SIGKILLed: reaping is quick
            exited.cancel()
        raise
    finally:
        remove_listener()
        for t in timers:
            t.cancel()
        for tr in transports:
            tr.close()


def _noop() -> None:
    return None


__all__ = ["OnChunk", "ProcessResult", "StopReason", "exit_future", "kill_group", "run_process"]
