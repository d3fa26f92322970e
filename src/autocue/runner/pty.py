"""The program under test in a pseudo-terminal: spawn, pump output, type, stop.

This is the runner's own pty process runner (``ptyprocess`` spawns; the child is a session
leader whose process group is killed as a whole). Output is read without blocking, fed to the
``Screen`` and to the asciicast recording; queries the program sends (cursor position, DA1)
are answered. ``last_output`` (monotonic seconds) drives the executor's quiet-screen waits.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ptyprocess import PtyProcess

from autocue.runner.cast import CastWriter
from autocue.runner.screen import Screen


class SpawnError(Exception):
    """The program could not be started (not found, not executable)."""


class PtyProgram:
    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], width: int, height: int,
                 cast: CastWriter) -> None:
        self.screen = Screen(width, height)
        self.cast = cast
        self.argv = list(argv)
        try:
            self._p = PtyProcess.spawn(self.argv, cwd=str(cwd), env=dict(env), dimensions=(height, width))
        except (FileNotFoundError, PermissionError, OSError) as e:
            raise SpawnError(f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self.pid: int = self._p.pid
        self.started = time.monotonic()
        self.last_output = self.started
        self.output_seen = False
        self.eof = False
        self.exit_code: int | None = None
        self.ended: float | None = None
        self.killed = False
        self.last_input = 0.0
        self.answered = True
        """False from a write until the program's next output (its echo or redraw)."""

    # ------------------------------------------------------------------ reading
    def pump(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; True when something arrived."""
        if self.eof:
            self._reap()
            if timeout > 0:
                time.sleep(min(timeout, 0.01))
            return False
        fd = self._p.fd
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
            reply = self.screen.feed(chunk)
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
            alive = self._p.isalive()
        except Exception:
            alive = False
        if not alive:
            st, sig = self._p.exitstatus, self._p.signalstatus
            self.exit_code = st if st is not None else (128 + sig if sig is not None else -1)
            self.ended = time.monotonic()

    @property
    def exited(self) -> bool:
        self._reap()
        return self.exit_code is not None

    # ------------------------------------------------------------------ writing
    def _write_raw(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self._p.fd, data)

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
        self.killed = True
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
            end = time.monotonic() + wait
            while time.monotonic() < end and not self.exited:
                self.pump(0.02)
            if self.exited:
                break

    def close(self) -> None:
        if not self.exited:
            self.kill_group(0.2)
        else:  # leftovers of the group (background children)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self._p.close(force=True)
        self._reap()
        self.cast.close()
