"""``autocue run --job DIR``: one result file per cell, a killed job resumes to the report of an uninterrupted
run; ``--retry`` retries only infrastructure kinds; ``--deadline`` leaves a valid, mergeable partial report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow
SLOW = """\
name: {name}
agent: mock
initialPrompt: "go"
timeline:
  - llmResponse:
      - assistant: [[0, "Working on {name}."]]
  - userCommand: {{cmd: "sleep {sleep}"}}
  - userInputs: [[0, "again"]]
  - llmResponse:
      - assistant: [[0, "Done with {name}."]]
  - assert:
      text: {{contains: ["{expect}"]}}
expect: {{exitCode: 0}}
"""


def write_scenarios(folder: Path, count: int, sleep: float = 0.3, failing: int | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        name = f"cell{n:02d}"
        expect = "never printed" if n == failing else f"Done with {name}."
        (folder / f"{name}.yaml").write_text(SLOW.format(name=name, sleep=sleep, expect=expect), encoding="utf-8")
    return folder


def autocue(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue", "run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what differs between two runs of the same cells: timings and per-run paths."""
    def scenario(s: dict[str, Any]) -> dict[str, Any]:
        return {"cell": s["cell"], "name": s["name"], "file": s["file"], "passed": s["passed"],
                "failures": [(f["kind"], f["message"].split(" (")[0], f["position"]) for f in s["failures"]],
                "transcript": s["transcript"], "attempts": len(s.get("attempts", []))}

    return {"passed": report["passed"], "failed": report["failed"], "goldens": report["goldens"],
            "scenarios": [scenario(s) for s in report["scenarios"]], "not_run": report.get("not_run", [])}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_job_resumes_to_the_report_of_an_uninterrupted_run(tmp_path: Path, sig: signal.Signals) -> None:
    write_scenarios(tmp_path / "sc", 10, failing=4)
    whole = autocue("sc", "--job", "whole", "--out", "out-whole", "--json", cwd=tmp_path)
    assert whole.returncode == 1, whole.stderr  # cell04 fails its assert: a result like any other
    reference = json.loads(whole.stdout)
    assert reference["passed"] == 9 and len(list((tmp_path / "whole" / "cells").iterdir())) == 10

    proc = subprocess.Popen([sys.executable, "-m", "autocue", "run", "sc", "--job", "job", "--out", "out-job"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cells = tmp_path / "job" / "cells"
    while proc.poll() is None and len(list(cells.glob("*.json")) if cells.is_dir() else []) < 3:
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -sig if sig == signal.SIGKILL else proc.returncode == 128 + sig, err
    before = {p.name: p.read_bytes() for p in cells.glob("*.json")}
    assert 3 <= len(before) < 10, "the job was stopped before its end"
    assert not list(cells.glob(".*.tmp")) or sig == signal.SIGKILL  # no half-written result after SIGTERM
    for data in before.values():
        assert json.loads(data)["result"]["name"].startswith("cell")  # whole files only, even after SIGKILL
    if sig == signal.SIGTERM:
        assert "run the same command to resume" in err
        partial = json.loads((tmp_path / "out-job" / "report.json").read_text())
        assert len(partial["scenarios"]) + len(partial["not_run"]) == 10
        assert {n["reason"] for n in partial["not_run"]} == {"interrupted"}

    resumed = autocue("sc", "--job", "job", "--out", "out-job", "--json", cwd=tmp_path)
    assert resumed.returncode == 1, resumed.stderr
    report = json.loads(resumed.stdout)
    assert comparable(report) == comparable(reference)
    for name, data in before.items():  # the cells done before the kill were not run again
        assert (cells / name).read_bytes() == data
    merged = autocue("--merge-reports", "job", cwd=tmp_path)
    assert comparable(json.loads(merged.stdout)) == comparable(reference)
    again = autocue("sc", "--job", "job", "--out", "out-job", cwd=tmp_path)
    assert "job job: 10 of 10 cells already have a result (not run again)" in again.stdout


FLAKY = """\
import pathlib, sys, time
count = pathlib.Path(sys.argv[1])
n = int(count.read_text()) if count.exists() else 0
count.write_text(str(n + 1))
if n == 0:
    time.sleep(60)          # the first attempt hangs: a timeout
print("ready", flush=True)
"""


def test_retries_take_only_the_infrastructure_kinds_and_keep_every_attempt(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text(FLAKY, encoding="utf-8")
    (tmp_path / "a_flaky.yaml").write_text(
        'name: flaky\nah: {cmd: "{python} {scenario_dir}/flaky.py {scenario_dir}/count"}\n'
        "timeline:\n  - assert: {text: {contains: [ready]}}\nexpect: {exitCode: 0}\n", encoding="utf-8")
    (tmp_path / "b_wrong.yaml").write_text(
        'name: wrong\nah: {cmd: "echo hello"}\ntimeline:\n  - assert: {text: {contains: [goodbye]}}\n',
        encoding="utf-8")
    (tmp_path / "c_missing.yaml").write_text(
        'name: missing\nah: {cmd: "/nonexistent/agent-cli"}\ntimeline:\n  - assert: {text: {contains: [x]}}\n',
        encoding="utf-8")
    done = autocue(".", "--retry", "2", "--retry-on", "setup,timeout", "--timeout", "3", "--json", "--job", "j",
                   cwd=tmp_path)
    report = json.loads(done.stdout)
    by = {s["name"]: s for s in report["scenarios"]}
    # the hung first attempt: its assert saw no screen, then the timeout; retried, it passed
    assert by["flaky"]["passed"] and [f["kind"] for f in by["flaky"]["attempts"][0]["failures"]] == ["assert",
                                                                                                      "timeout"]
    assert len(by["flaky"]["attempts"]) == 1 and (tmp_path / "count").read_text() == "2"
    assert not by["wrong"]["passed"] and "attempts" not in by["wrong"]  # an assert failure is never retried
    assert [f["kind"] for f in by["missing"]["failures"]] == ["setup"]
    assert len(by["missing"]["attempts"]) == 2  # 1 + 2 retries, all kept
    text = autocue("--merge-reports", "j", cwd=tmp_path)
    assert json.loads(text.stdout)["scenarios"][0]["attempts"][0]["failures"][1]["kind"] == "timeout"

    bad = autocue(".", "--retry", "1", "--retry-on", "golden", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.strip().endswith(
        "--retry-on golden: a golden failure is the scenario's own result, never retried; choose from setup, "
        "timeout, infra")


def test_a_deadline_stops_starting_cells_and_the_partial_report_merges(tmp_path: Path) -> None:
    write_scenarios(tmp_path / "sc", 3, sleep=0.8)
    started = time.monotonic()
    done = autocue("sc", "--job", "j", "--deadline", "0.3", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [s["name"] for s in report["scenarios"]] == ["cell00"] and report["scenarios"][0]["passed"]
    assert [(n["name"], n["reason"]) for n in report["not_run"]] == [(f"cell0{i}", "deadline") for i in (1, 2)]
    assert time.monotonic() - started >= 0.8  # the running cell finished (no --deadline-kill)

    # the rest runs in another job dir, then the two merge into the whole
    rest = autocue("sc", "--job", "j2", "--json", cwd=tmp_path)
    assert rest.returncode == 0, rest.stderr
    merged = json.loads(autocue("--merge-reports", "j", "j2", cwd=tmp_path).stdout)
    assert merged["passed"] == 3 and "not_run" not in merged
    assert [s["name"] for s in merged["scenarios"]] == ["cell00", "cell01", "cell02"]


def test_deadline_kill_stops_the_running_cell_and_resume_runs_it(tmp_path: Path) -> None:
    write_scenarios(tmp_path / "sc", 2, sleep=30)
    marker = tmp_path / "sc" / "cell00.yaml"
    marker.write_text(marker.read_text().replace("sleep 30", "sleep 30 # autocue-jobs-test-marker"))
    done = autocue("sc", "--job", "j", "--deadline", "1", "--deadline-kill", "--json", "--junit", "j.xml",
                   cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["scenarios"] == [] and [n["reason"] for n in report["not_run"]] == ["deadline", "deadline"]
    assert 'skipped="2"' in (tmp_path / "j.xml").read_text()
    assert "autocue-jobs-test-marker" not in subprocess.run(["ps", "-eo", "args"], capture_output=True,
                                                             text=True, check=True).stdout
    assert not list((tmp_path / "j" / "cells").glob("*.json")) if (tmp_path / "j" / "cells").exists() else True
    for p in (tmp_path / "sc").glob("*.yaml"):
        p.write_text(p.read_text().replace("sleep 30 # autocue-jobs-test-marker", "sleep 0").replace("sleep 30",
                                                                                                  "sleep 0"))
    resumed = autocue("sc", "--job", "j", "--json", cwd=tmp_path)
    assert json.loads(resumed.stdout)["passed"] == 2, resumed.stderr


def test_a_bad_job_dir_and_bad_deadline_are_one_line(tmp_path: Path) -> None:
    write_scenarios(tmp_path / "sc", 1, sleep=0)
    (tmp_path / "afile").write_text("x")
    bad = autocue("sc", "--job", "afile", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "autocue run: --job afile: not a directory; give a directory for the job's cell results")
    when = autocue("sc", "--deadline", "tomorrow", cwd=tmp_path)
    assert when.returncode == 2 and "--deadline 'tomorrow': expected seconds from now (900) or an ISO 8601 time" \
        in when.stderr
    ok = autocue("sc", "--job", "j", cwd=tmp_path)
    [cell] = (tmp_path / "j" / "cells").glob("*.json")
    cell.write_text("{not json")
    broken = autocue("sc", "--job", "j", cwd=tmp_path)
    assert ok.returncode == 0 and broken.returncode == 2 and "delete it to run the cell again" in broken.stderr
    assert "Traceback" not in broken.stderr + bad.stderr + when.stderr


def test_an_iso_deadline_in_the_past_runs_nothing(tmp_path: Path) -> None:
    write_scenarios(tmp_path / "sc", 2, sleep=0)
    done = autocue("sc", "--deadline", "2000-01-01T00:00:00Z", "--json", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["passed"] == 0 and len(report["not_run"]) == 2
    assert os.path.exists(tmp_path / "autocue-runs" / "report.json")


def test_a_runner_failure_is_an_infra_failure_retried_with_infra(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from autocue.runner import RunOptions, collect
    from autocue.runner.executor import Execution
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.jobs import Plan, parse_retry_on, run_cells
    from autocue.runner.matrix import cells_of

    write_scenarios(tmp_path / "sc", 1, sleep=0)
    real = Execution.run
    calls: list[int] = []

    def once_broken(self: Execution) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("out of something")
        return real(self)

    monkeypatch.setattr(Execution, "run", once_broken)
    cells = cells_of(collect([tmp_path / "sc"]))
    options = RunOptions(out=tmp_path / "out", ci=False)
    report = run_cells(cells, options, Plan(job=tmp_path / "job", retry=1, retry_on=parse_retry_on("infra")),
                       Interrupt())
    [result] = report.scenarios
    assert result.passed and len(calls) == 2
    [attempt] = result.attempts
    assert attempt["failures"][0]["kind"] == "infra"
    assert attempt["failures"][0]["message"] == "the runner failed on this cell: RuntimeError: out of something"
    calls.clear()
    again = run_cells(cells, options, Plan(job=tmp_path / "job2", retry=1, retry_on=parse_retry_on("timeout")),
                      Interrupt())
    assert [f.kind for f in again.scenarios[0].failures] == ["infra"] and len(calls) == 1  # not a kind retried
