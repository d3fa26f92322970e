"""``autocue init [DIR]``: the shipped examples written out as a starting project, never overwriting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autocue.cli.init import main
from autocue.example_files import example_files

ROOT = Path(__file__).resolve().parents[2]


def _tree(d: Path) -> dict[str, bytes]:
    """Every file under ``d`` (bytecode caches left out: pytest may have written them in examples/)."""
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_shipped_examples_are_the_repository_examples() -> None:
    files = example_files()
    assert "README.md" in files and "planner/tests/test_planner.py" in files and "loop/autocue.loop.yml" in files
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]
    assert files == sorted(_tree(ROOT / "examples"))


def test_init_writes_the_examples_and_a_readme_saying_what_to_run(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dest = tmp_path / "new" / "project"
    assert main([str(dest)]) == 0
    assert _tree(dest) == _tree(ROOT / "examples")
    readme = (dest / "README.md").read_text()
    assert "## What to run next" in readme and "pytest -q planner/tests" in readme
    out = capsys.readouterr().out
    assert f"wrote {len(example_files())} files to {dest}" in out
    assert f"next: cd {dest} && pytest -q planner/tests" in out


def test_dir_defaults_to_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")  # files init does not write are fine
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    assert (tmp_path / "scenarios" / "tool_use.yaml").is_file()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert "next: pytest -q planner/tests" in capsys.readouterr().out


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "tool_use.yaml").write_text("my own scenario")
    (tmp_path / "README.md").write_text("my readme")
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert err.startswith(f"autocue init: {tmp_path / 'README.md'} already exists (and 1 more); init never overwrites")
    assert _tree(tmp_path) == {"README.md": b"my readme", "scenarios/tool_use.yaml": b"my own scenario"}


def test_a_file_where_a_directory_goes_is_a_conflict_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "planner").write_text("a file")
    assert main([str(tmp_path)]) == 1
    assert f"{tmp_path / 'planner'} already exists" in capsys.readouterr().err
    assert _tree(tmp_path) == {"planner": b"a file"}


def test_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    assert main([str(target)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"autocue init: cannot write the starting project to {target}: {target} is a file, not a directory")
    assert target.read_text() == "x"


def test_init_through_the_autocue_command(tmp_path: Path) -> None:
    first = subprocess.run([sys.executable, "-m", "autocue.cli.main", "init", "proj"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([sys.executable, "-m", "autocue.cli.main", "init", "proj"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert again.stderr.startswith("autocue init: proj/README.md already exists")
