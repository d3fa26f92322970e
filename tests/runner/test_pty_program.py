"""The scenario executor's program under test, driven through a pseudo-terminal on top of the
one process runner (``autocue.process.spawn`` and ``Child.stop``): real programs, real ptys."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from proc_helpers import alive, gone_within

from autocue.runner.cast import CastWriter
from autocue.runner.pty import PtyProgram, SpawnError

# a background grandchild that ignores SIGHUP (the pty's hang-up at the leader's exit cannot end it):
# only a signal to the whole group does
GRANDCHILD = "trap '' HUP; sleep 30 & echo pid=$!; "


def _program(tmp_path: Path, argv: list[str]) -> PtyProgram:
    return PtyProgram(argv, cwd=tmp_path, env={"PATH": os.environ["PATH"]}, width=80, height=24,
                      cast=CastWriter(tmp_path / "s.cast", 80, 24, title="t"))


def _pump_until(prog: PtyProgram, text: str) -> None:
    deadline = time.monotonic() + 20
    while text not in prog.screen.text() and time.monotonic() < deadline:
        prog.pump(0.05)
    assert text in prog.screen.text(), prog.screen.text()


def test_the_executor_s_program_is_stopped_as_a_group_grandchild_included(tmp_path: Path) -> None:
    prog = _program(tmp_path, ["sh", "-c", "trap '' TERM; " + GRANDCHILD + "echo up; sleep 30"])
    try:
        _pump_until(prog, "up")
        background = int(prog.screen.text().split("pid=", 1)[1].split()[0])
        t0 = time.monotonic()
        prog.kill_group(0.3)  # TERM is ignored: KILL after the grace, the screen read meanwhile
        assert prog.exited and prog.exit_code == 128 + signal.SIGKILL and 0.25 < time.monotonic() - t0 < 5
        assert gone_within(background, 2.0), "the grandchild outlived the stop"
    finally:
        prog.close()


def test_closing_an_ended_program_ends_what_it_left_in_its_group(tmp_path: Path) -> None:
    prog = _program(tmp_path, ["sh", "-c", GRANDCHILD + "echo up"])
    background = 0
    try:
        _pump_until(prog, "up")
        background = int(prog.screen.text().split("pid=", 1)[1].split()[0])
        assert prog.wait_exit(time.monotonic() + 20) and prog.exit_code == 0
        assert alive(background)
    finally:
        prog.close()
        if background:
            assert gone_within(background, 2.0), "close() left the background child running"


def test_ctrl_c_typed_into_the_executor_s_program_interrupts_it(tmp_path: Path) -> None:
    prog = _program(tmp_path, ["sh", "-c", "echo up; exec sleep 30"])
    try:
        _pump_until(prog, "up")
        prog.write("\x03")
        assert prog.wait_exit(time.monotonic() + 20)
        assert prog.exit_code == 128 + signal.SIGINT  # the terminal is its controlling one
    finally:
        prog.close()


def test_a_missing_program_is_a_spawn_error(tmp_path: Path) -> None:
    with pytest.raises(SpawnError, match="no such program"):
        _program(tmp_path, ["definitely-not-a-program-here"])
    (tmp_path / "script").write_text("#!/bin/sh\n")
    with pytest.raises(SpawnError, match="not executable"):
        _program(tmp_path, [str(tmp_path / "script")])
