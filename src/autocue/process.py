"""Run a program in its own process group, stream its output, and stop it for certain.

One mechanism for every place autocue runs a program (the ``bash`` tool, RPC ``bash``,
``ExtensionAPI.exec``, the loop's command backend, the sandbox check):
``await run_process(argv, on_stdout=..., timeout=..., signal=...)``, or
``run_process_sync(...)`` from synchronous code.

- The program starts in a new session (``start_new_session``), so it leads its own process
  group; ``on_start(pid)`` is called as soon as it exists, before anything is awaited (so a
  caller can register the group for an out-of-band kill that no cancellation can miss).
- One stop policy: a stop (``timeout`` seconds passed, ``signal`` aborted, or the awaiting
  task cancelled) signals the **whole group**, so background children die too. With
  ``kill_grace`` > 0 the group gets SIGTERM first and SIGKILL after ``kill_grace`` seconds
  (at once when 0); a cancelled caller waits for that grace before the cancellation goes on
  (a second cancellation kills at once).
- The exit is watched on a pidfd (Linux; a waiter thread elsewhere), not through the pipes:
  once the program has exited, what is left in its pipes is read for at most
  ``drain_timeout`` seconds, so a grandchild that holds a pipe open cannot keep the caller
  waiting (``ProcessResult.drained`` is then false; such a process keeps running unless the
  run was stopped, or ``end_group`` asks to end whatever the program left in its group, in
  which cases the group is SIGKILLed before returning).
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
from typing import IO, Any, Literal

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
    on_start: Callable[[int], None] | None = None,
    end_group: bool = False,
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
        if on_start is not None:
            on_start(proc.pid)
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
        if stopped or end_group:
            kill_group(proc.pid)  # nothing of a stopped run outlives it
        for p in pumps:
            if not p.done():
                p.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await p
        return ProcessResult(code, stopped[0] if stopped else None, drained)
    except BaseException as e:
        if isinstance(e, asyncio.CancelledError) and kill_grace > 0 and not exited.done():
            await _term_then_kill(proc.pid, exited, kill_grace)
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


async def _term_then_kill(pid: int, exited: asyncio.Future[int], grace: float) -> None:
    """SIGTERM the group and give it ``grace`` seconds (the caller SIGKILLs it after)."""
    kill_group(pid, signals.SIGTERM)
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(exited), grace)


def run_process_sync(argv: Sequence[str], **options: Any) -> ProcessResult:
    """``run_process(argv, **options)`` from synchronous code (in a thread of its own when an
    event loop runs in this one). Ctrl-C stops the program's group and propagates."""

    async def main() -> ProcessResult:
        return await run_process(argv, **options)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    outcome: list[ProcessResult | BaseException] = []

    def in_thread() -> None:
        try:
            outcome.append(asyncio.run(main()))
        except BaseException as e:  # handed to the calling thread
            outcome.append(e)

    worker = threading.Thread(target=in_thread, name="autocue-run-process", daemon=True)
    worker.start()
    worker.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _noop() -> None:
    return None


__all__ = ["OnChunk", "ProcessResult", "StopReason", "exit_future", "kill_group", "run_process", "run_process_sync"]
