"""The program under test in a pseudo-terminal: spawn, pump output, type, stop.

This is the runner's own pty process runner, on the standard library (``pty.fork``, as
``ptyprocess`` does): the child is a session leader with the pty as its controlling terminal,
and its process group is killed as a whole. An ``exec`` failure is reported back through a
close-on-exec pipe, so "no such program" is an error of the spawn, not an exit code. Output is
read without blocking, fed to the ``Screen`` and to the asciicast recording; queries the
program sends (cursor position, DA1) are answered. ``last_change`` (when the masked screen
text last changed) drives the executor's quiet-screen waits; ``last_output`` (any byte) tells
whether the program answered an input.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import termios
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from autocue.errors import AutocueError
from autocue.runner.cast import CastWriter
from autocue.runner.screen import Screen


class SpawnError(AutocueError):
    """The program could not be started (not found, not executable)."""


class PtyProgram:
    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], width: int, height: int,
                 cast: CastWriter, settle_view: Callable[[str], str] | None = None) -> None:
        self.screen = Screen(width, height, settle_view)
        self.cast = cast
        self.argv = list(argv)
        self.pid, self.fd = _spawn(self.argv, cwd, dict(env), width, height)
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
        screen on SIGTERM: what it showed while it ran is the evidence a failure needs)."""
        self.last_input = 0.0
        self.answered = True
        """False from a write until the program's next output (its echo or redraw)."""

    # ------------------------------------------------------------------ reading
    def pump(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; True when something arrived."""
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

    def _reap(self) -> None:
        if self.exit_code is not None:
            return
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, -1
        if pid == self.pid:
            self.exit_code = os.waitstatus_to_exitcode(status) if status != -1 else -1
            if self.exit_code < 0:  # killed by a signal: the shell's convention
                self.exit_code = 128 - self.exit_code
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
        """SIGTERM the process group, keep reading for ``grace`` s, then SIGKILL it."""
        if not self.killed:
            self.screen_at_kill = self.screen.text()
        self.killed = True
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
            end = time.monotonic() + wait
            while time.monotonic() < end and not self.exited:
                self.pump(0.02)
            if self.exited:
                break

    def last_screen(self) -> str:
        """The screen as the program left it, or as it was when the runner stopped it."""
        return self.screen_at_kill if self.screen_at_kill is not None else self.screen.text()

    def close(self) -> None:
        if not self.exited:
            self.kill_group(0.2)
        else:  # leftovers of the group (background children)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self.fd)
        end = time.monotonic() + 2
        while not self.exited and time.monotonic() < end:
            time.sleep(0.01)
        self.cast.close()


def _spawn(argv: list[str], cwd: Path, env: dict[str, str], width: int, height: int) -> tuple[int, int]:
    """Fork the program onto a new pty (``rows x cols`` set before it starts); raise ``SpawnError``."""
    exe = shutil.which(argv[0], path=env.get("PATH")) if "/" not in argv[0] else argv[0]
    if exe is None or not os.path.isfile(exe):
        raise SpawnError(f"cannot start {argv[0]!r}: no such program (PATH has no {argv[0]!r})")
    if not os.access(exe, os.X_OK):
        raise SpawnError(f"cannot start {argv[0]!r}: not executable")
    err_r, err_w = os.pipe()
    os.set_inheritable(err_w, False)
    with warnings.catch_warnings():
        # Python >= 3.12 warns about fork() in a threaded process (the server and -j workers are
        # threads); the child only sets the window size, changes directory and execs
        warnings.simplefilter("ignore", DeprecationWarning)
        pid, fd = pty.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(err_r)
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
            os.chdir(cwd)
            os.execve(exe, argv, env)
        except BaseException as e:
            with contextlib.suppress(BaseException):
                os.write(err_w, f"{type(e).__name__}: {getattr(e, 'strerror', None) or e}".encode())
        finally:
            os._exit(127)
    os.close(err_w)
    with os.fdopen(err_r, "rb") as f:
        failure = f.read()
    if failure:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        os.close(fd)
        raise SpawnError(f"cannot start {argv[0]!r}: {failure.decode(errors='replace')}")
    return pid, fd
