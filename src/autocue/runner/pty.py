"""The program under test in a pseudo-terminal: read its screen, type, stop.

The program is started by the one process runner (``autocue.process.spawn`` with a
``terminal``): a session leader with the pty as its controlling terminal; it is stopped by the
runner's policy (``Child.stop``: SIGTERM to its process group, SIGKILL after a grace) and reaped
through it. What is specific to driving a terminal lives here: output is read without blocking,
fed to the ``Screen`` and to the asciicast recording; queries the program sends (cursor
position, DA1) are answered; keys are typed. A program that cannot be started is a
``SpawnError``, not an exit code. ``last_change`` (when the masked screen text last changed)
drives the executor's quiet-screen waits; ``last_output`` (any byte) tells whether the program
answered an input.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from autocue.process import Child, spawn
from autocue.runner.cast import CastWriter
from autocue.runner.errors import SpawnError as SpawnError
from autocue.runner.interrupt import Interrupt
from autocue.runner.screen import Screen


class PtyProgram:
    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], width: int, height: int,
                 cast: CastWriter, settle_view: Callable[[str], str] | None = None,
                 stop: Interrupt | None = None) -> None:
        self.stop = stop
        """An interrupt of ``autocue run``: ``pump`` raises ``Interrupted`` once it came (until the stop)."""
        self.screen = Screen(width, height, settle_view)
        self.cast = cast
        self.argv = list(argv)
        self.child = _spawn(self.argv, cwd, env, width, height)
        self.pid = self.child.pid
        assert self.child.terminal is not None
        self.fd = self.child.terminal
        self.started = time.monotonic()
        self.last_output = self.started
        self.last_change = self.started
        """When the (masked) screen text last changed: the quiet window is measured from it."""
        self.output_seen = False
        self.eof = False
        self.exit_code: int | None = None
        self.ended: float | None = None
        self.killed = False
        self.screen_at_kill: str | None = None
        """The screen as it was when the runner began to stop the program (a TUI leaves its alternate
        screen on SIGTERM or its quit input: what it showed while it ran is the evidence a failure needs)."""
        self.last_input = 0.0
        self.answered = True
        """False from a write until the program's next output (its echo or redraw)."""

    # ------------------------------------------------------------------ reading
    def pump(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; True when something arrived. Raises
        ``Interrupted`` after an interrupt, unless the program is being stopped."""
        self._check_stop()
        if self.eof:  # the pty is closed: only the exit status is still to come (soon; poll it, never wait for it)
            self._reap()
            if timeout > 0 and self.exit_code is None:
                time.sleep(min(timeout, 0.002))
                self._reap()
            return False
        fd = self.fd
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except InterruptedError:
            return False
        self._check_stop()  # the signal came while waiting
        if not ready:
            self._reap()
            return False
        got = False
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            except OSError as e:
                if e.errno in (errno.EIO, errno.EBADF):
                    self.eof = True
                    self._reap()
                    break
                raise
            if not chunk:
                self.eof = True
                self._reap()
                break
            got = True
            self.cast.output(chunk)
            before = self.screen.version
            reply = self.screen.feed(chunk)
            if self.screen.version != before:
                self.last_change = time.monotonic()
            if reply:
                self._write_raw(reply)
            if not select.select([fd], [], [], 0)[0]:
                break
        if got:
            self.last_output = time.monotonic()
            self.output_seen = True
            self.answered = True
        return got

    def _check_stop(self) -> None:
        if self.stop is not None and not self.killed:
            self.stop.check()

    def _reap(self) -> None:
        if self.exit_code is not None:
            return
        code = self.child.poll()
        if code is not None:
            self.exit_code = 128 - code if code < 0 else code  # killed by a signal: the shell's convention
            self.ended = time.monotonic()

    @property
    def exited(self) -> bool:
        self._reap()
        return self.exit_code is not None

    # ------------------------------------------------------------------ writing
    def _write_raw(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, data)

    def write(self, text: str) -> None:
        """Type ``text`` (recorded as an ``i`` event)."""
        self.cast.input(text)
        self.last_input = time.monotonic()
        self.answered = False
        self._write_raw(text.encode())

    def busy(self) -> bool:
        """True while a process of the program's tree is running (not asleep), read from ``/proc``."""
        todo = [self.pid]
        seen: set[int] = set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for t in tasks:
                base = f"/proc/{pid}/task/{t}/"
                try:
                    with open(base + "stat", "rb") as f:
                        state = f.read().rsplit(b")", 1)[1].split()[0]
                    if state in (b"R", b"D"):
                        return True
                    with open(base + "children", "rb") as f:
                        todo.extend(int(c) for c in f.read().split())
                except (OSError, IndexError, ValueError):
                    continue
        return False

    # ------------------------------------------------------------------ ending
    def wait_exit(self, deadline: float) -> bool:
        """Pump until the program exited and its pty is drained (or ``deadline``); True if it exited."""
        while time.monotonic() < deadline:
            self.pump(0.02)
            if self.exited and (self.eof or time.monotonic() - self.last_output > 0.05):
                # drain what is still buffered
                while self.pump(0):
                    pass
                return True
        return self.exited

    def kill_group(self, grace: float = 1.0) -> None:
        """Stop the program's process group (``Child.stop``: SIGTERM, then SIGKILL after ``grace``
        s), reading its screen meanwhile."""
        if self.screen_at_kill is None:
            self.screen_at_kill = self.screen.text()
        self.killed = True
        self.child.stop(grace, self._read_until_exit)

    def _read_until_exit(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.exited:
            self.pump(0.02)
        return self.exited

    def last_screen(self) -> str:
        """The screen as the program left it, or as it was when the runner stopped it."""
        return self.screen_at_kill if self.screen_at_kill is not None else self.screen.text()

    def close(self) -> None:
        if not self.exited:
            self.kill_group(0.2)
        else:  # leftovers of the group (background children)
            self.child.signal_group()  # SIGKILL
        with contextlib.suppress(OSError):
            os.close(self.fd)
        if self.child.reap(2.0) is not None:
            self._reap()
        self.cast.close()


def _spawn(argv: list[str], cwd: Path, env: Mapping[str, str], width: int, height: int) -> Child:
    """Start the program on a new pty of ``width x height``; raise ``SpawnError``."""
    exe = shutil.which(argv[0], path=env.get("PATH")) if "/" not in argv[0] else argv[0]
    if exe is None or not os.path.isfile(exe):
        raise SpawnError(f"cannot start {argv[0]!r}: no such program (PATH has no {argv[0]!r})")
    if not os.access(exe, os.X_OK):
        raise SpawnError(f"cannot start {argv[0]!r}: not executable")
    try:
        return spawn(argv, cwd=cwd, env=env, terminal=(width, height), executable=exe)
    except OSError as e:
        raise SpawnError(f"cannot start {argv[0]!r}: {type(e).__name__}: {e.strerror or e}") from None
