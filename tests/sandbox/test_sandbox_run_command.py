"""The sandbox check's command runner (``autocue.sandbox.commands.run``) is ``autocue.process.run_process_sync``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from proc_helpers import gone_within

from autocue.sandbox.commands import run


def test_output_is_interleaved_and_the_exit_code_kept(tmp_path: Path) -> None:
    res = run(["sh", "-c", "echo one; echo two >&2; exit 5"], cwd=tmp_path, env=dict(os.environ), timeout=10)
    assert (res.returncode, res.output.split(), res.ok) == (5, ["one", "two"], False)


def test_a_timeout_ends_the_whole_group(tmp_path: Path) -> None:
    t0 = time.monotonic()
    res = run(["sh", "-c", "sleep 30 & echo $!; wait"], cwd=tmp_path, env=dict(os.environ), timeout=0.3)
    assert res.timed_out and not res.ok and "(timed out after 0.3 s)" in res.output
    assert time.monotonic() - t0 < 5
    assert gone_within(int(res.output.split()[0]), 2.0), "a background child outlived the timeout"


def test_a_program_that_cannot_start_is_a_result_not_an_exception(tmp_path: Path) -> None:
    res = run(["/definitely/not/here"], cwd=tmp_path, env=dict(os.environ), timeout=5)
    assert res.returncode == -1 and "FileNotFoundError" in res.output
