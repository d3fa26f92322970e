"""A passing scenario says what passed: replies played, tool calls, errors served and retried, assert steps."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autocue.testing import run_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def test_a_run_without_assert_steps_says_what_it_played() -> None:
    run = run_scenario(EXAMPLES / "thinking_text.yaml")
    assert run.summary() == "2 replies played, 0 tool calls, no assertions"


def test_the_summary_counts_tool_calls_and_assert_steps() -> None:
    run = run_scenario(EXAMPLES / "tool_use.yaml")
    assert run.summary() == "4 replies played, 3 tool calls (read, write, bash), 2 assert steps (3 checks) passed"


def test_a_served_429_and_its_retry_are_read_from_the_session_events() -> None:
    run = run_scenario(EXAMPLES / "rate_limit_retry.yaml")
    assert [e.attempt for e in run.events.of_type("auto_retry_start")] == [1]
    assert run.retries() == ["429 rate_limit_error served, retried (attempt 1 of 3, succeeded)"]
    assert run.summary().endswith("429 rate_limit_error served, retried (attempt 1 of 3, succeeded), no assertions")


def test_scenario_run_cli_prints_the_summary() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "scenario", "run", str(EXAMPLES)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS thinking_and_text: 2 replies played, 0 tool calls, no assertions\n" in proc.stdout
    assert "PASS rate_limit_then_success: 2 replies played, 0 tool calls, 429 rate_limit_error served" in proc.stdout
