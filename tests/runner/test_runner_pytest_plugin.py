"""Scenario files collected by pytest (``autocue_scenarios`` ini / ``--autocue-scenarios``), under xdist too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner_helpers import ECHO_PROG, at, files_block, scenario

pytestmark = pytest.mark.slow


def project(tmp_path: Path) -> Path:
    prog = files_block(**{"prog.py": ECHO_PROG})
    (tmp_path / "scenarios").mkdir()
    for name, tag, word in (("greets", "smoke", "bye"), ("fails", "smoke", "oops"), ("other", "slowish", "bye")):
        scenario(tmp_path / "scenarios", f"""\
name: {name}
tags: [{tag}]
ah: {{cmd: python3 prog.py}}
{prog}timeline:
  - userInputs: [[0, "{word}"]]
  - screenshot: end
  - assert: {{text: {{contains: ["got bye"]}}}}
  - userInputs: [[0, "bye"]]
""", f"{name}.yaml")
    (tmp_path / "pytest.ini").write_text("[pytest]\nautocue_scenarios = scenarios/*.yaml\n")
    return tmp_path


def pytest_run(root: Path, *args: str, ci: str | None = None) -> subprocess.CompletedProcess[str]:
    """pytest in ``root``, with ``CI`` set to ``ci`` (None: unset, as these scenarios in a temp dir write
    their goldens on the first run)."""
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci is not None else {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(root),
                           "-c", str(root / "pytest.ini"), *args], cwd=root, capture_output=True, text=True,
                          timeout=110, env=env)


def test_scenarios_are_items_with_tags_as_markers_and_a_readable_failure(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = pytest_run(root, "-m", "smoke", "-v")
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "scenarios/fails.yaml::fails FAILED" in out and "scenarios/greets.yaml::greets PASSED" in out
    assert "other" not in out.split("short test summary")[0].split("collected")[1].split("\n", 1)[0]
    assert "1 failed, 1 passed, 1 deselected" in out
    assert f"{at(root / 'scenarios/fails.yaml', '- assert')}: assert: text.contains 'got bye'" in out
    assert "last screen:\n  | ready\n  | oops\n  | got oops" in out
    assert "transcript:" in out and "Screenshot: end: new" in out
    assert (root / "scenarios/goldens/cmd/greets/100x30/screenshots/end.golden").read_text() == (
        "ready\nbye\ngot bye\nend\n")
    assert "autocue goldens: 2 written, 0 compared, 0 failed" in out


def test_ci_mode_fails_a_missing_golden_and_the_summary_counts_goldens(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = pytest_run(root, "-k", "greets", ci="true")  # CI=true: --autocue-ci by default
    assert proc.returncode == 1, proc.stdout + proc.stderr
    golden = root / "scenarios/goldens/cmd/greets/100x30/screenshots/end.golden"
    assert f"golden: screenshot 'end' has no golden {golden} (CI mode" in proc.stdout and not golden.exists()
    assert "autocue goldens: 0 written, 0 compared, 1 failed" in proc.stdout
    proc = pytest_run(root, "-k", "greets", "--no-autocue-ci", ci="true")
    assert proc.returncode == 0 and "autocue goldens: 1 written, 0 compared, 0 failed" in proc.stdout


def test_works_under_xdist_and_from_the_command_line_option(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "pytest.ini").write_text("[pytest]\n")
    proc = pytest_run(root, "-n", "2", "--autocue-scenarios", "scenarios/*.yaml", "-k", "not fails")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
    assert "autocue goldens: 2 written, 0 compared, 0 failed" in proc.stdout  # counted across the workers


def test_nothing_is_collected_without_the_setting(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "pytest.ini").write_text("[pytest]\n")
    proc = pytest_run(root, "scenarios")
    assert proc.returncode == 5 and "no tests ran" in proc.stdout


def test_a_broken_scenario_is_a_one_line_collection_error(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "scenarios" / "broken.yaml").write_text("name: broken\ntimeline:\n  - think: oops\n")
    proc = pytest_run(root, "-k", "greets")
    assert proc.returncode == 2, proc.stdout
    assert "broken.yaml:3:12: timeline[0].think: expected a list" in proc.stdout
    assert "Traceback" not in proc.stdout and "pytest_plugin.py" not in proc.stdout


def test_messages_name_the_pytest_options_and_the_scenarios_own_program_wins(tmp_path: Path) -> None:
    """Under pytest a golden failure says ``--autocue-update-goldens`` and a scenario without a program
    ``--autocue-agent`` / ``--autocue-cmd`` (not ``autocue run``'s flags); ``--autocue-agent`` runs only the
    scenarios that name no program."""
    root = project(tmp_path)
    (root / "pytest.ini").write_text("[pytest]\n")
    golden = root / "scenarios/goldens/cmd/greets/100x30/screenshots/end.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("ready\nbye\ngot bye\nsomething else\n")
    scenario(root / "scenarios", """\
        name: nameless
        initialPrompt: hi
        timeline:
          - llmResponse:
              - assistant: [[0, "hello"]]
        """, "nameless.yaml")
    proc = pytest_run(root, "--autocue-scenarios", "scenarios/*.yaml", "-k", "greets or nameless")
    out = proc.stdout
    assert "2 failed" in out, out + proc.stderr
    assert "rerun with --autocue-update-goldens to accept it" in out
    assert "names no program to run: pass --autocue-agent autocue|mock|claude|... or --autocue-cmd 'COMMAND'" in out
    assert "--update-goldens to" not in out.replace("--autocue-update-goldens", "")
    assert "pass --agent" not in out and "--cmd 'COMMAND'" not in out.replace("--autocue-cmd 'COMMAND'", "")

    golden.unlink()  # --autocue-agent is the fallback: the ah.cmd scenario still runs its own program
    proc = pytest_run(root, "--autocue-scenarios", "scenarios/*.yaml", "-k", "greets or nameless",
                      "--autocue-agent", "mock")
    assert "2 passed" in proc.stdout, proc.stdout + proc.stderr
    assert (root / "autocue-runs/cmd/greets").is_dir() and (root / "autocue-runs/mock/nameless").is_dir()
    assert not (root / "autocue-runs/mock/greets").exists()  # (--autocue-agent-override: test_launch_choice.py)
