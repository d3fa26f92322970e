"""The README's main job: ``autocue demo`` runs every section and ends with a passing summary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.cli.demo import SECTIONS


@pytest.mark.slow
def test_demo_runs_every_section_and_passes_in_an_empty_directory(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-2000:]
    assert "== summary" in out
    summary = out.split("== summary", 1)[1]
    assert "[FAIL]" not in summary
    assert re.findall(r"\[PASS\] (.+?) \(\d+\.\d\ds\)", summary) == [name for name, _ in SECTIONS]
    assert out.rstrip().splitlines()[-1] == f"{len(SECTIONS)} passed, 0 failed"
    assert list(tmp_path.iterdir()) == []  # the examples were played from a temp copy
    # the rate-limit example: the 429 that was served and its retry, in both scenario sections' summary lines
    lines = {ln.split("] ", 1)[1].split(" (", 1)[0]: ln for ln in summary.splitlines() if "] " in ln}
    retried = "rate_limit_retry.yaml: 429 rate_limit_error served, retried"
    assert retried + " (attempt 1 of 3, succeeded)" in lines["example scenarios, in-process"]
    assert retried + " (succeeded)" in lines["example scenarios over HTTP: mock LLM server + autocue agent CLI"]
    assert "✗ model call failed: 429 rate_limit_error: Rate limited: please slow down → retry 1 of 3" in out
    # the runner's examples, each folder counted, every scenario passing
    runs = lines["example terminal runs: autocue run on tui/ and mock-agent/"]
    assert re.search(r": (\d+) of \1 scenarios passed \(tui: (\d+) of \2, mock-agent: (\d+) of \3\)$", runs), runs
    assert re.search(r"^  PASS mock-agent/wrapped_agent\.yaml \(cmd, \d+\.\d\ds\): summary$", out, flags=re.M)
    # a scenario without assert steps says what passed instead of "0 assertion checks"
    assert "PASS thinking_text.yaml: 2 replies played, 0 tool calls, no assertions" in out


def test_demo_help_lists_the_sections_it_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "autocue.cli.main", "demo", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^  (\d)\. (.+)$", proc.stdout, flags=re.M)
    assert listed == [(str(i), name) for i, (name, _) in enumerate(SECTIONS, 1)]
    assert len(listed) == 6 and listed[-1][1] == "example terminal runs: autocue run on tui/ and mock-agent/"
    assert "committed goldens" in " ".join(proc.stdout.split())
    assert "shows the 429" in " ".join(proc.stdout.split())


@pytest.mark.slow
def test_the_runner_section_fails_on_a_golden_that_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autocue.cli import demo
    from autocue.example_files import copy_examples

    copy_examples(tmp_path / "examples")
    golden = next((tmp_path / "examples" / "mock-agent").rglob("summary.golden"))
    golden.write_text(golden.read_text(encoding="utf-8").replace("Checking the app.", "Checking nothing."),
                      encoding="utf-8")
    monkeypatch.setattr(demo, "RUNNER_EXAMPLES", ("mock-agent",))
    ok, detail = demo.section_runner(tmp_path / "examples")
    assert (ok, detail) == (False, "0 of 1 scenarios passed (mock-agent: 0 of 1)")
