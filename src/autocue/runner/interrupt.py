"""An interrupted ``autocue run``: SIGINT or SIGTERM stops every running scenario, the same way.

``Interrupt.handling()`` installs one handler for both signals (the CLI's, for the length of the
runs). The handler raises nothing (an exception thrown at a random point of the main thread could
cut a clean-up short); it records the signal, sets the event that every run's waits look at
(``PtyProgram.pump`` raises ``Interrupted`` there, in each run's own thread, so ``-j N`` stops them
all), and SIGKILLs the process groups of the side commands running at that moment (``userCommand``,
``userEdits``' ``git apply``), which no pump waits on. Each interrupted run then cleans up as any run
does: the program's process group gets SIGTERM, a grace, SIGKILL; its temporary workspace is removed
(kept only with ``--keep``: an interrupted run is not a failure of its scenario).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from autocue.process import kill_group
from autocue.runner.errors import Interrupted as Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupt:
    """The stop shared by the runs of one ``autocue run`` (see the module docstring)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signum: int | None = None
        """The first signal received (None: not interrupted)."""
        self.groups: set[int] = set()
        """Process groups of side commands running now (their leaders' pids)."""
        self.kept: list[str] = []
        """Workspaces of interrupted runs kept (``--keep``)."""

    def trigger(self, signum: int, frame: FrameType | None = None) -> None:
        """The signal handler: record, set the event, SIGKILL the side commands' groups."""
        if self.signum is None:
            self.signum = signum
        self.halt()

    def halt(self) -> None:
        """Stop every run as a signal does, without one (a job's ``--deadline-kill``): ``signum`` stays None."""
        self.event.set()
        for pid in list(self.groups):
            kill_group(pid)

    def check(self) -> None:
        """Raise ``Interrupted`` once interrupted."""
        if self.event.is_set():
            raise Interrupted(signal.Signals(self.signum or signal.SIGINT).name)

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + (self.signum or signal.SIGINT)

    @contextlib.contextmanager
    def handling(self) -> Iterator[Interrupt]:
        """SIGINT and SIGTERM call ``trigger`` while in the block (only a block in the main thread, where
        Python runs signal handlers: elsewhere it changes nothing)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        before = {s: signal.getsignal(s) for s in SIGNALS}
        for s in SIGNALS:
            signal.signal(s, self.trigger)
        try:
            yield self
        finally:
            for s, handler in before.items():
                signal.signal(s, handler)

    def started(self, pid: int) -> None:
        """A side command's group began (the ``on_start`` of ``autocue.process``): killed at an interrupt,
        at once when it came after one."""
        self.groups.add(pid)
        if self.event.is_set():
            kill_group(pid)

    def ended(self, pid: int) -> None:
        self.groups.discard(pid)


__all__ = ["SIGNALS", "Interrupt", "Interrupted"]
