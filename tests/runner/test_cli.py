"""``autocue run``: selection, shards, reports, merging, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from runner_helpers import ECHO_PROG, at, files_block, scenario

from autocue.cli.run import main

pytestmark = pytest.mark.slow


def suite(tmp_path: Path) -> Path:
    d = tmp_path / "scenarios"
    d.mkdir()
    prog = files_block(**{"prog.py": ECHO_PROG})
    for name, tags, word in (("alpha", "[fast]", "bye"), ("beta", "[fast, smoke]", "bye"), ("gamma", "[smoke]", "x"),
                             ("delta", "[]", "bye")):
        scenario(d, f"name: {name}\ntags: {tags}\nah: {{cmd: python3 prog.py}}\n{prog}timeline:\n"
                    f"  - userInputs: [[0, \"{word}\"]]\n  - assert: {{text: {{contains: ['got bye']}}}}\n"
                    f"  - userInputs: [[0, \"bye\"]]\n", f"{name}.yaml")
    return d


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_report_and_exit_code_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = suite(tmp_path)
    code, rep = run_json(capsys, str(d), "--out", str(tmp_path / "out"), "-j", "2")
    assert code == 1
    assert (rep["passed"], rep["failed"]) == (3, 1)
    scenarios = rep["scenarios"]
    assert isinstance(scenarios, list)
    assert [s["name"] for s in scenarios] == ["alpha", "beta", "delta", "gamma"]
    gamma = scenarios[3]
    assert set(gamma) == {"name", "file", "passed", "duration_s", "workspace", "out_dir", "failures", "screenshots",
                          "goldens", "transcript", "warnings"}  # it scripts no model reply: a warning says so
    assert gamma["warnings"] == [f"{d / 'gamma.yaml'}:16:1: timeline: the timeline has no llmResponse (nor a think, "
                                 "assistant, tool or error event): the scenario scripts 0 model replies"]
    [f] = gamma["failures"]
    assert f["kind"] == "assert" and f["position"] == at(d / "gamma.yaml", "- assert")
    assert Path(gamma["workspace"]).is_dir()


def test_tags_keyword_and_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = suite(tmp_path)
    code, rep = run_json(capsys, str(d), "--tags", "fast", "--out", str(tmp_path / "o"))
    assert code == 0 and [s["name"] for s in rep["scenarios"]] == ["alpha", "beta"]  # type: ignore[index]
    code, rep = run_json(capsys, str(d), "-k", "ELT", "--out", str(tmp_path / "o"))
    assert code == 0 and [s["name"] for s in rep["scenarios"]] == ["delta"]  # type: ignore[index]


def test_shards_split_the_selection_and_merge_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = suite(tmp_path)
    names: list[list[str]] = []
    for i in (1, 2, 3):
        out = tmp_path / f"shard{i}"
        code = main([str(d), "--shard", f"{i}/3", "--json", "--junit", str(out / "junit.xml"), "--out", str(out)])
        text = capsys.readouterr().out
        (out / "report.json").write_text(text)
        names.append([s["name"] for s in json.loads(text)["scenarios"]])
        assert code == (1 if "gamma" in names[-1] else 0)
    assert sorted(n for shard in names for n in shard) == ["alpha", "beta", "delta", "gamma"]
    assert names == [["alpha", "gamma"], ["beta"], ["delta"]]  # round robin over file order: stable
    reports = [str(tmp_path / f"shard{i}/report.json") for i in (1, 2, 3)]
    xmls = [str(tmp_path / f"shard{i}/junit.xml") for i in (1, 2, 3)]
    code, merged = run_json(capsys, "--merge-reports", *reports, *xmls, "--junit", str(tmp_path / "all.xml"))
    assert code == 1 and (merged["passed"], merged["failed"]) == (3, 1)
    assert merged["goldens"] == {"written": 0, "compared": 0, "failed": 0} and merged["cwd"] == os.getcwd()
    root = ET.parse(tmp_path / "all.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("4", "1")
    failure = root.find(".//testcase[@name='gamma']/failure")
    assert failure is not None and failure.get("type") == "assert"


@pytest.mark.parametrize(("argv", "message"), [
    (["--shard", "4/3", "X"], "--shard '4/3': expected I/N with 1 <= I <= N"),
    (["--terminal", "wide", "X"], "--terminal 'wide': expected COLUMNSxROWS"),
    (["missing.yaml"], "missing.yaml:1:1: no such scenario file or directory"),
    ([], "give scenario files or directories to run"),
    (["--merge-reports", "nope.json"], "nope.json: no such report file"),
])
def test_usage_and_scenario_errors_exit_2_with_one_line(argv: list[str], message: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "X").mkdir()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("autocue run: ") and message in err


def test_a_broken_scenario_is_exit_2_with_its_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = scenario(tmp_path, "name: bad\ntimeline:\n  - think: oops\n")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"autocue run: {bad}:3:12: timeline[0].think: ") and err.count("\n") == 1


def test_a_setup_failure_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = scenario(tmp_path, "name: noprog\ntimeline: []\n")
    assert main([str(path), "--out", str(tmp_path / "o")]) == 2
    out = capsys.readouterr().out
    assert "FAIL noprog" in out and "setup: scenario 'noprog' names no program to run" in out


def test_the_command_line_end_to_end(tmp_path: Path) -> None:
    path = scenario(tmp_path, "name: placeholders\ninitialPrompt: hi there\ntimeline: []\nexpect: {exitCode: 0}\n")
    proc = subprocess.run([sys.executable, "-m", "autocue.cli.main", "run", str(path), "--cmd",
                           "sh -c 'echo {prompt} {api_key} {base_url}'", "--out", str(tmp_path / "o"),
                           "--terminal", "200x5", "--keep"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("PASS placeholders (")
    assert proc.stdout.endswith("1 passed, 0 failed; goldens: 0 written, 0 compared, 0 failed\n")
    screens = list((tmp_path / "o/cmd/placeholders/200x5").glob("*/session.cast"))
    assert len(screens) == 1
    text = screens[0].read_text()
    assert "hi there run-" in text and "http://127.0.0.1:" in text and "/s/run-" in text


def test_agent_flag_overrides_the_scenarios_own_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = scenario(tmp_path, """\
name: override
ah: {cmd: "false"}
timeline:
  - assistant: [[0, "from the mock agent"]]
  - screenshot: s
expect: {exitCode: 0}
""")
    code, rep = run_json(capsys, str(path), "--out", str(tmp_path / "o"), "--no-ci")
    assert code == 1 and rep["scenarios"][0]["failures"][0]["kind"] == "exit_code"  # type: ignore[index]
    code, rep = run_json(capsys, str(path), "--agent", "mock", "--out", str(tmp_path / "o"), "--no-ci")
    assert code == 0, rep
    shot = Path(rep["scenarios"][0]["screenshots"]["s"])  # type: ignore[index]
    assert shot.read_text() == "autocue mock-agent · override\nfrom the mock agent\n"
    assert shot == tmp_path / "goldens/mock/override/100x30/screenshots/s.golden"


GREET = """\
name: greet
ah: {cmd: "{python} {scenario_dir}/greeter.py"}
timeline:
  - userInputs: [[0, "Ada"]]
  - screenshot: greeted
expect: {exitCode: 0}
"""


def autocue_run(cwd: Path, ci: str | None, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci is not None else {})
    return subprocess.run([sys.executable, "-m", "autocue.cli.main", "run", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_ci_mode_fails_a_missing_golden_and_the_summary_counts_goldens(tmp_path: Path) -> None:
    (tmp_path / "greeter.py").write_text("name = input('name? ')\nprint(f'hello, {name}!')\n")
    (tmp_path / "greet.yaml").write_text(GREET)
    golden = tmp_path / "goldens/cmd/greet/100x30/screenshots/greeted.golden"
    ci = autocue_run(tmp_path, "true", "greet.yaml")  # CI=true: --ci by default
    assert ci.returncode == 1 and not golden.exists(), ci.stdout + ci.stderr
    assert f"greet.yaml:5:5: golden: screenshot 'greeted' has no golden {golden} (CI mode" in ci.stdout
    assert "run the scenario locally with --update-goldens and commit the golden file" in ci.stdout
    assert ci.stdout.endswith("0 passed, 1 failed; goldens: 0 written, 0 compared, 1 failed\n")
    local = autocue_run(tmp_path, "true", "greet.yaml", "--no-ci")
    assert local.returncode == 0 and golden.read_text() == "name? Ada\nhello, Ada!\n", local.stdout
    assert local.stdout.endswith("1 passed, 0 failed; goldens: 1 written, 0 compared, 0 failed\n")
    assert "  golden written: goldens/cmd/greet/100x30/screenshots/greeted.golden (commit it)\n" in local.stdout
    assert not list((tmp_path / "goldens").rglob("*.actual"))  # screens go to the run's folder
    assert len(list((tmp_path / "autocue-runs").rglob("*.actual"))) == 1  # the CI run's
    again = autocue_run(tmp_path, "true", "greet.yaml")
    assert again.stdout.endswith("1 passed, 0 failed; goldens: 0 written, 1 compared, 0 failed\n"), again.stdout
    assert autocue_run(tmp_path, "0", "greet.yaml").returncode == 0
    golden.unlink()
    assert autocue_run(tmp_path, None, "greet.yaml", "--ci").returncode == 1  # --ci without CI
    assert autocue_run(tmp_path, "false", "greet.yaml").returncode == 0 and golden.is_file()  # CI=false: not CI


def test_a_golden_failure_carries_its_diff_in_json_junit_and_report_json(tmp_path: Path) -> None:
    (tmp_path / "greeter.py").write_text("name = input('name? ')\nprint(f'hello, {name}!')\n")
    (tmp_path / "greet.yaml").write_text(GREET)
    golden = tmp_path / "goldens/cmd/greet/100x30/screenshots/greeted.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("name? Ada\nhello, Bob!\n")
    proc = autocue_run(tmp_path, "true", "greet.yaml", "--json", "--junit", "j.xml", "--out", "runs")
    assert proc.returncode == 1, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["goldens"] == {"written": 0, "compared": 1, "failed": 1} and rep["cwd"] == str(tmp_path)
    [sc] = rep["scenarios"]
    actual = Path(sc["out_dir"]) / "screenshots/greeted.actual"
    [f] = sc["failures"]
    assert f["kind"] == "golden" and f["diff"] == (f"--- {golden}\n+++ {actual}\n@@ -1,2 +1,2 @@\n name? Ada\n"
                                                   "-hello, Bob!\n+hello, Ada!\n")
    assert sc["goldens"] == [{"label": "greeted", "status": "differs", "golden": str(golden), "actual": str(actual)}]
    assert json.loads((tmp_path / "runs/report.json").read_text()) == rep  # `autocue view runs` reads it
    failure = ET.parse(tmp_path / "j.xml").getroot().find(".//testcase[@name='greet']/failure")
    assert failure is not None and failure.get("type") == "golden"
    assert failure.text is not None and failure.text.endswith(f["diff"]) and f["message"] in failure.text


def test_report_json_is_not_written_over_a_file_autocue_did_not_write(tmp_path: Path) -> None:
    path = scenario(tmp_path, "name: quick\nah: {cmd: 'true'}\ntimeline: []\n")
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.json").write_text('{"my": "notes"}')
    proc = autocue_run(tmp_path, None, str(path), "--out", str(out))
    assert proc.returncode == 0 and (out / "report.json").read_text() == '{"my": "notes"}'
    assert proc.stderr == (f"autocue run: {out / 'report.json'} is not a report of autocue run: left as it is "
                           "(choose another --out for `autocue view`)\n")


def test_help_states_the_settle_defaults_the_runner_uses(capsys: pytest.CaptureFixture[str]) -> None:
    from autocue.runner.agents import BUILTIN
    from autocue.runner.launch import DEFAULT_SETTLE, Choice

    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    mock, cmd, claude = Choice("mock", "mock").settle, Choice("cmd", None, ["bc"]).settle, BUILTIN["claude"]
    assert f"(default: {mock:g} for --agent mock, the profile's settle for a real agent CLI, else {cmd:g})" in text
    assert cmd == DEFAULT_SETTLE and Choice("claude", None, agent=claude).settle == claude.settle


IGNORED_ASSERT = """\
name: ignored-assert
initialPrompt: hi
timeline:
  - llmResponse:
      - assistant: [[0, "hello"]]
  - assert: {fs: {path: out.txt, contains: "x"}}
"""


def test_the_scenarios_warnings_are_shown_with_its_result(tmp_path: Path) -> None:
    """An assert whose keys are all ignored checks nothing: the run says so beside PASS (and in --json),
    instead of a bare PASS that reads as if out.txt had been checked."""
    (tmp_path / "ignored.yaml").write_text(IGNORED_ASSERT)
    run = autocue_run(tmp_path, None, "ignored.yaml", "--agent", "mock")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("PASS ignored-assert")
    assert lines[1:4] == [
        "  warning: ignored.yaml:6:19: timeline[1].assert.fs.path: unknown key 'path' in assert.fs is ignored",
        "  warning: ignored.yaml:6:34: timeline[1].assert.fs.contains: unknown key 'contains' in assert.fs is ignored",
        "  warning: ignored.yaml:6:13: timeline[1].assert: this assert has no checks",
    ]
    as_json = json.loads(autocue_run(tmp_path, None, "ignored.yaml", "--agent", "mock", "--json").stdout)
    assert as_json["scenarios"][0]["warnings"][-1] == "ignored.yaml:6:13: timeline[1].assert: this assert has no checks"
