"""The end of a program: once it exited and its pty is closed, the executor waits no more.

Each ``--agent mock`` run ends this way (benchmarks/bench_runner.py): a fixed sleep after the
end of the output, per look at the program, was paid twice per scenario.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

import autocue.runner.pty as pty_module
from autocue.runner.cast import CastWriter
from autocue.runner.pty import PtyProgram


def test_no_sleep_once_the_program_exited_and_its_pty_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prog = PtyProgram([sys.executable, "-c", "print('bye')"], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
                      width=80, height=24, cast=CastWriter(tmp_path / "s.cast", 80, 24, title="t"))
    try:
        deadline = time.monotonic() + 30
        while not (prog.eof and prog.exited) and time.monotonic() < deadline:
            prog.pump(0.05)
        assert prog.eof and prog.exit_code == 0 and "bye" in prog.screen.text()
        slept: list[float] = []
        monkeypatch.setattr(pty_module.time, "sleep", slept.append)
        assert prog.pump(0.5) is False
        assert prog.wait_exit(time.monotonic() + 5) is True
        assert slept == []  # before: 10 ms per pump, and wait_exit pumps at least once
    finally:
        prog.close()
