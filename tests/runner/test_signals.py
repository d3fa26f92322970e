"""``autocue run`` started the way ``nohup autocue run ... &`` or some CI runners start it (SIGINT
ignored, inherited across ``exec``): the program under test still gets default signal handling,
so a ``<ctrl-c>`` the scenario types interrupts it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_helpers import scenario

pytestmark = pytest.mark.slow


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_ctrl_c_in_a_scenario_ends_the_program_when_autocue_run_was_started_with_sigint_ignored(
        tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
        name: interrupt
        ah: {cmd: "sh -c 'echo up; exec sleep 30'"}
        timeline:
          - assert: {text: {contains: [up]}}
          - userInputs: [[0, "<ctrl-c>"]]
        expect: {exitCode: 130}
        """)
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "autocue", "run", str(path), "--out", str(tmp_path / "out"),
                           "--timeout", "20", "--json"], capture_output=True, text=True, timeout=120,
                          preexec_fn=_ignore_sigint)
    took = time.monotonic() - t0
    assert done.returncode == 0, done.stdout + done.stderr
    [result] = json.loads(done.stdout)["scenarios"]
    assert result["passed"] and took < 20, (result, took)
