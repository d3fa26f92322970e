"""Run a program in its own process group, stream its output, and stop it for certain.

One mechanism for every place autocue runs a program (the ``bash`` tool, RPC ``bash``,
``ExtensionAPI.exec``, the loop's command backend, the sandbox check, ``grep``'s ripgrep, a
subagent's child process, the scenario executor's program under test in a pseudo-terminal):
``await run_process(argv, on_stdout=..., timeout=..., signal=...)``, or
``run_process_sync(...)`` from synchronous code (``capture`` / ``capture_sync`` collect the
output instead). A caller that drives the program itself (the
scenario executor reads a terminal's screen and types keys) uses the same parts: ``spawn``
starts it, ``Child.stop`` applies the stop policy, ``Child.poll`` / ``Child.reap`` reap it.

- The program starts in a new session (``start_new_session``), so it leads its own process
  group; ``on_start(pid)`` is called as soon as it exists, before anything is awaited (so a
  caller can register the group for an out-of-band kill that no cancellation can miss).
- ``terminal=(columns, rows)`` runs it in a new pseudo-terminal of that size, its controlling
  terminal (stdin, stdout and stderr are the terminal; output arrives through ``on_stdout``;
  ``input`` is typed into it).
- One stop policy (``stop_steps``): a stop (``timeout`` seconds passed, ``signal`` aborted, or
  the awaiting task cancelled) signals the **whole group**, so background children die too.
  With ``kill_grace`` > 0 the group gets SIGTERM first and SIGKILL after ``kill_grace`` seconds
  (at once when 0); a cancelled caller waits for that grace before the cancellation goes on
  (a second cancellation kills at once).
- The exit is watched on a pidfd (Linux; a waiter thread elsewhere), not through the pipes:
  once the program has exited, what is left in its pipes is read for at most
  ``drain_timeout`` seconds, so a grandchild that holds a pipe open cannot keep the caller
  waiting (``ProcessResult.drained`` is then false; such a process keeps running unless the
  run was stopped, or ``end_group`` asks to end whatever the program left in its group, in
  which cases the group is SIGKILLed before returning).
- Output arrives in chunks through ``on_stdout`` / ``on_stderr`` (``merge_stderr`` sends both
  through ``on_stdout`` in arrival order); ``input`` is written to stdin, which is closed after
  (bytes, or an async iterable of chunks written as they come: stdin stays open until it ends).
  A callback that raises ends the run at once: the group is SIGKILLed and the error propagates.
- The program starts with default signal handling: what autocue inherited ignored (SIGINT
  under ``nohup`` or some CI runners) or blocked is reset in the child before ``exec``.

A program that cannot be started raises ``OSError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import signal as signals
import struct
import subprocess
import termios
import threading
from collections.abc import AsyncIterable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from autocue.llm.abort import AbortSignal

StopReason = Literal["timeout", "abort"]
OnChunk = Callable[[bytes], None]
_T = TypeVar("_T")
Terminal = tuple[int, int]
"""A pseudo-terminal's size: (columns, rows)."""

KILL_WAIT = 1.0
"""Seconds a group is given to vanish after SIGKILL (a synchronous driver's last wait)."""


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


def stop_steps(grace: float) -> list[tuple[int, float]]:
    """The one stop policy, as (signal to the group, seconds to wait for the end) steps: SIGTERM
    and ``grace`` seconds, then SIGKILL (SIGKILL alone when ``grace`` is 0)."""
    kill = (signals.SIGKILL, KILL_WAIT)
    return [(signals.SIGTERM, grace), kill] if grace > 0 else [kill]


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


class Child:
    """A program started by ``spawn``: it leads a new session and process group. ``terminal``
    is the master side of its pseudo-terminal (None: it has pipes; the caller closes it)."""

    __slots__ = ("pid", "proc", "terminal")

    def __init__(self, proc: subprocess.Popen[bytes], terminal: int | None) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.terminal = terminal

    def signal_group(self, sig: int = signals.SIGKILL) -> None:
        kill_group(self.pid, sig)

    def poll(self) -> int | None:
        """The exit code once it exited (reaped without blocking; negative: killed by that signal)."""
        return self.proc.poll()

    def reap(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the exit; the exit code, or None while it runs."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.proc.wait(timeout)
        return None

    def stop(self, grace: float, wait: Callable[[float], bool]) -> bool:
        """Apply ``stop_steps(grace)``; ``wait(seconds)`` says whether the program ended within that
        time (a terminal's driver keeps reading its screen meanwhile). True once it ended."""
        for sig, seconds in stop_steps(grace):
            self.signal_group(sig)
            if wait(seconds):
                return True
        return False

    async def stop_async(self, grace: float, exited: asyncio.Future[int]) -> bool:
        """``stop`` awaiting ``exited`` (its ``exit_future``); a cancellation SIGKILLs the group at once."""
        for sig, seconds in stop_steps(grace):
            self.signal_group(sig)
            try:
                await asyncio.wait_for(asyncio.shield(exited), seconds)
                return True
            except TimeoutError:
                continue
            except asyncio.CancelledError:
                self.signal_group()
                raise
        return False


def spawn(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
    stdout: int | None = subprocess.PIPE,
    stderr: int | None = subprocess.PIPE,
    terminal: Terminal | None = None,
    executable: str | None = None,
) -> Child:
    """Start ``argv`` leading a new session and process group; ``stdin`` / ``stdout`` / ``stderr``
    as ``subprocess.Popen`` takes them. With ``terminal`` (columns, rows) the three are a new
    pseudo-terminal of that size instead, which becomes the program's controlling terminal (so
    Ctrl-C reaches its foreground group), and ``Child.terminal`` is its master side. ``executable``
    is the file to run when it is not ``argv[0]`` looked up on ``env``'s PATH. A program that cannot
    be started raises ``OSError``."""
    environ = dict(env) if env is not None else None
    defaults = _signal_defaults()
    if terminal is None:
        proc = subprocess.Popen(list(argv), executable=executable, cwd=cwd, env=environ, stdin=stdin,
                                stdout=stdout, stderr=stderr, start_new_session=True,
                                preexec_fn=functools.partial(_child_setup, *defaults, False) if any(defaults) else None)
        return Child(proc, None)
    master, slave = os.openpty()
    try:
        columns, rows = terminal
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        proc = subprocess.Popen(list(argv), executable=executable, cwd=cwd, env=environ, stdin=slave, stdout=slave,
                                stderr=slave, start_new_session=True,
                                preexec_fn=functools.partial(_child_setup, *defaults, True))
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return Child(proc, master)


_RESTORED = frozenset({signals.SIGKILL, signals.SIGSTOP, signals.SIGPIPE, signals.SIGXFSZ})
"""Signals a child needs no reset of: SIGKILL and SIGSTOP cannot be caught or ignored, and
``subprocess`` itself restores SIGPIPE and SIGXFSZ (``restore_signals``)."""


def _signal_defaults() -> tuple[list[signals.Signals], bool]:
    """What the child must reset so that it starts with default signal handling whatever this
    process inherited (``nohup``, a shell or CI runner that ignores SIGINT, a thread that blocks
    signals): the signals ignored here (an ignored signal stays ignored across ``exec``; a
    handled one is reset by it), and whether this thread's signal mask blocks any (the mask is
    inherited too). Nothing to reset (the common case) keeps ``subprocess``'s fast path."""
    ignored = [s for s in signals.valid_signals() if s not in _RESTORED and _ignored(s)]
    return ignored, bool(signals.pthread_sigmask(signals.SIG_BLOCK, ()))


def _ignored(sig: int) -> bool:
    with contextlib.suppress(ValueError, OSError):
        return signals.getsignal(sig) == signals.SIG_IGN
    return False


def _child_setup(ignored: list[signals.Signals], masked: bool, take_terminal: bool) -> None:
    """In the child, after ``setsid``, before ``exec``: the signals ignored in autocue get their
    default action and the signal mask is cleared (so a Ctrl-C a scenario types interrupts the
    program even when autocue runs under ``nohup``); with ``take_terminal`` its stdin (the pty)
    becomes the controlling terminal."""
    for sig in ignored:
        with contextlib.suppress(ValueError, OSError):
            signals.signal(sig, signals.SIG_DFL)
    if masked:
        signals.pthread_sigmask(signals.SIG_SETMASK, ())
    if take_terminal:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class _Sink(asyncio.Protocol):
    """One output stream: chunks go to ``on_chunk`` as they arrive; ``done`` resolves at its end
    (EOF, or EIO of a pseudo-terminal whose every holder closed it) or with what ``on_chunk`` raised."""

    def __init__(self, on_chunk: OnChunk | None, done: asyncio.Future[None]) -> None:
        self.on_chunk = on_chunk
        self.done = done

    def data_received(self, data: bytes) -> None:
        if self.on_chunk is None or self.done.done():
            return
        try:
            self.on_chunk(data)
        except Exception as e:  # handed to the run, which raises it
            self.done.set_exception(e)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


class _Run:
    """The phases of one ``run_process``: connect the streams, arm the stops, finish or abandon."""

    def __init__(self, child: Child, kill_grace: float) -> None:
        self.child = child
        self.kill_grace = kill_grace
        self.loop = asyncio.get_running_loop()
        self.exited = exit_future(child.proc, self.loop)
        self.master = os.fdopen(child.terminal, "rb", buffering=0) if child.terminal is not None else None
        """The terminal's master side: read through a transport, closed with the run."""
        self.transports: list[asyncio.BaseTransport] = []
        self.streams: list[asyncio.Future[None]] = []
        self.tasks: list[asyncio.Future[Any]] = []
        self.timers: list[asyncio.TimerHandle] = []
        self.stopped: list[StopReason] = []
        self.remove_listener: Callable[[], None] = _noop

    async def connect(self, on_stdout: OnChunk | None, on_stderr: OnChunk | None,
                      input: bytes | AsyncIterable[bytes] | None) -> None:
        proc = self.child.proc
        outputs = ((self.master, on_stdout), (proc.stdout, on_stdout), (proc.stderr, on_stderr))
        for pipe, on_chunk in outputs:
            if pipe is None:
                continue
            done: asyncio.Future[None] = self.loop.create_future()
            transport, _ = await self.loop.connect_read_pipe(functools.partial(_Sink, on_chunk, done), pipe)
            self.transports.append(transport)
            self.streams.append(done)
        if input is None:
            return
        sink = os.fdopen(os.dup(self.master.fileno()), "wb", buffering=0) if self.master is not None else proc.stdin
        if sink is not None:
            writer, _ = await self.loop.connect_write_pipe(asyncio.Protocol, sink)
            self.transports.append(writer)
            self.tasks.append(asyncio.ensure_future(_feed(writer, input)))

    def arm(self, timeout: float | None, signal: AbortSignal | None) -> None:
        if signal is not None:
            self.remove_listener = signal.add_listener(lambda: self.stop("abort"))
        if timeout is not None and timeout > 0:
            self.timers.append(self.loop.call_later(float(timeout), self.stop, "timeout"))

    def stop(self, reason: StopReason) -> None:
        if self.stopped or self.exited.done():
            return
        self.stopped.append(reason)
        self.tasks.append(asyncio.ensure_future(self.child.stop_async(self.kill_grace, self.exited)))

    async def finish(self, drain_timeout: float, end_group: bool) -> ProcessResult:
        while not self.exited.done():  # an output callback that raises ends the run at once
            self.raise_callback_error()
            waiting: list[asyncio.Future[Any]] = [self.exited, *(s for s in self.streams if not s.done())]
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        code = self.exited.result()
        drained = True
        if self.streams:
            _, pending = await asyncio.wait(self.streams, timeout=drain_timeout)
            drained = not pending
        if self.stopped or end_group:
            self.child.signal_group()  # nothing of a stopped run outlives it
        self.raise_callback_error()
        return ProcessResult(code, self.stopped[0] if self.stopped else None, drained)

    def raise_callback_error(self) -> None:
        """Raise what an output callback raised (``abandon`` then ends the group)."""
        for done in self.streams:
            if done.done() and not done.cancelled():
                done.result()

    async def abandon(self, cancelled: bool) -> None:
        """The run failed or was cancelled: the group goes (after its TERM grace on a cancellation)."""
        if cancelled and self.kill_grace > 0 and not self.exited.done():
            with contextlib.suppress(asyncio.CancelledError):
                await self.child.stop_async(self.kill_grace, self.exited)
        self.child.signal_group()
        if not self.exited.done():
            self.child.proc.wait()  # the group was just SIGKILLed: reaping is quick
            self.exited.cancel()

    def close(self) -> None:
        self.remove_listener()
        for t in self.timers:
            t.cancel()
        for task in self.tasks:
            task.cancel()
        for done in self.streams:
            if not done.done():
                done.cancel()
        for tr in self.transports:
            tr.close()
        if self.master is not None:
            self.master.close()


async def _feed(writer: asyncio.WriteTransport, input: bytes | AsyncIterable[bytes]) -> None:
    """Write ``input`` to the program, then close the writing end (once what is written has gone)."""
    if isinstance(input, bytes):
        writer.write(input)
    else:
        async for chunk in input:
            if writer.is_closing():
                break
            writer.write(chunk)
    writer.close()


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | AsyncIterable[bytes] | None = None,
    on_stdout: OnChunk | None = None,
    on_stderr: OnChunk | None = None,
    merge_stderr: bool = False,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    kill_grace: float = 0.0,
    drain_timeout: float = 0.5,
    on_start: Callable[[int], None] | None = None,
    end_group: bool = False,
    terminal: Terminal | None = None,
) -> ProcessResult:
    """Run ``argv`` to its end or until stopped; see the module docstring."""
    child = spawn(argv, cwd=cwd, env=env, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                  stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE, terminal=terminal)
    run = _Run(child, kill_grace)
    try:
        if on_start is not None:
            on_start(child.pid)
        await run.connect(on_stdout, on_stderr, input)
        run.arm(timeout, signal)
        return await run.finish(drain_timeout, end_group)
    except BaseException as e:
        await run.abandon(isinstance(e, asyncio.CancelledError))
        raise
    finally:
        run.close()


def run_process_sync(argv: Sequence[str], **options: Any) -> ProcessResult:
    """``run_process(argv, **options)`` from synchronous code (in a thread of its own when an
    event loop runs in this one). Ctrl-C stops the program's group and propagates."""
    return _blocking(lambda: run_process(argv, **options))


@dataclass(slots=True, frozen=True)
class Captured(ProcessResult):
    """A run whose output was collected, decoded as UTF-8 (bad bytes replaced); with
    ``merge_stderr`` both streams are in ``stdout``."""

    stdout: str
    stderr: str


async def capture(argv: Sequence[str], **options: Any) -> Captured:
    """``run_process(argv, **options)`` with the output collected instead of streamed."""
    out: list[bytes] = []
    err: list[bytes] = []
    r = await run_process(argv, on_stdout=out.append, on_stderr=err.append, **options)
    return Captured(r.code, r.stopped, r.drained, b"".join(out).decode("utf-8", "replace"),
                    b"".join(err).decode("utf-8", "replace"))


def capture_sync(argv: Sequence[str], **options: Any) -> Captured:
    """``capture`` from synchronous code, as ``run_process_sync``."""
    return _blocking(lambda: capture(argv, **options))


def _blocking(main: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run ``main()`` to its end: here, or in a thread of its own when an event loop runs in this one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    outcome: list[_T | BaseException] = []

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


__all__ = [
    "KILL_WAIT",
    "Captured",
    "Child",
    "OnChunk",
    "ProcessResult",
    "StopReason",
    "Terminal",
    "capture",
    "capture_sync",
    "exit_future",
    "kill_group",
    "run_process",
    "run_process_sync",
    "spawn",
    "stop_steps",
]
