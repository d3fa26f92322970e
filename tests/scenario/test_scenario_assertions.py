"""evaluate_assert runs every check against a real workspace and reports expected/actual."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from autocue.scenario import AssertSpec, GitCommitCheck, JsonFileCheck, evaluate_assert, load_scenario_text


def test_fs_json_text_checks(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "d.json").write_text(json.dumps({"a": [1, {"b/c": "v"}], "t~": True}))
    spec = AssertSpec(
        fs_exists=["a.txt", "missing.txt"], fs_not_exists=["gone.txt", "a.txt"],
        text_contains=["hello   world", "absent"],
        json_file=[JsonFileCheck("d.json", "/a/0", 1), JsonFileCheck("d.json", "/a/1/b~1c", "v"),
                   JsonFileCheck("d.json", "/t~0", True), JsonFileCheck("d.json", "/a/5", 1),
                   JsonFileCheck("d.json", "/a/0", 2), JsonFileCheck("nope.json", "", None)],
    )
    report = evaluate_assert(spec, tmp_path, text="say hello\nworld now")
    assert [(r.check, r.passed, r.actual) for r in report.results] == [
        ("fs.exists a.txt", True, "exists"),
        ("fs.exists missing.txt", False, "missing"),
        ("fs.notExists gone.txt", True, "missing"),
        ("fs.notExists a.txt", False, "exists"),
        ("text.contains 'hello   world'", True, None),  # whitespace-normalized
        ("text.contains 'absent'", False, "say hello\nworld now"),
        ("json.file d.json/a/0", True, 1),
        ("json.file d.json/a/1/b~1c", True, "v"),
        ("json.file d.json/t~0", True, True),
        ("json.file d.json/a/5", False, "pointer not found"),
        ("json.file d.json/a/0", False, 1),
        ("json.file nope.json", False, "file missing"),
    ]
    assert not report.passed and len(report.failed) == 6
    assert spec.count == 12


def test_text_without_a_source_fails_loudly(tmp_path: Path) -> None:
    report = evaluate_assert(AssertSpec(text_contains=["x"]), tmp_path)
    assert [(r.passed, r.actual) for r in report.results] == [(False, "no text was given to check (pass text=...)")]


def test_git_commit_message(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    spec = AssertSpec(git_commit=[GitCommitCheck("initial"), GitCommitCheck("other")])
    assert [r.actual for r in evaluate_assert(spec, tmp_path).results] == [None, None]  # not a repo
    git("init", "-q")
    (tmp_path / "f").write_text("x")
    git("add", "f")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "initial import")
    report = evaluate_assert(spec, tmp_path)
    assert [(r.passed, r.actual) for r in report.results] == [(True, "initial import"), (False, "initial import")]


def test_loaded_assert_spec_reports_its_source(tmp_path: Path) -> None:
    sc = load_scenario_text("name: t\ntimeline:\n  - assert:\n      fs: {exists: a.txt}\n", "s.yaml")
    spec = sc.compile().turns[0].checks[0].spec
    assert isinstance(spec, AssertSpec) and spec.fs_exists == ["a.txt"]
    report = evaluate_assert(spec, tmp_path)
    assert report.source == "s.yaml:3"
    assert report.message() == ("1 of 1 scenario assertion(s) failed at s.yaml:3:\n"
                                f"  - fs.exists a.txt: expected 'exists', got 'missing' (in workspace {tmp_path})")
    assert spec.describe() == "assert fs.exists ['a.txt'] (s.yaml:3)"


def test_fs_failures_name_the_workspace_they_looked_in(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "a.txt").write_text("next to the workspace, not in it")
    (ws / "b.txt").write_text("x")
    report = evaluate_assert(AssertSpec(fs_exists=["a.txt", "b.txt"], fs_not_exists=["b.txt"]), ws)
    assert [(r.check, r.passed, r.workspace) for r in report.results] == [
        ("fs.exists a.txt", False, str(ws)), ("fs.exists b.txt", True, str(ws)), ("fs.notExists b.txt", False, str(ws))]
    assert report.message().splitlines() == [
        "2 of 3 scenario assertion(s) failed:",
        f"  - fs.exists a.txt: expected 'exists', got 'missing' (in workspace {ws})",
        f"  - fs.notExists b.txt: expected 'missing', got 'exists' (in workspace {ws})",
    ]
