"""``autocue init [DIR]``: the shipped examples written out as a starting project, never overwriting."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.cli.init import PYTEST_INI, main
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
    assert _tree(dest) == {**_tree(ROOT / "examples"), "pytest.ini": PYTEST_INI.encode()}
    readme = (dest / "README.md").read_text()
    assert "## What to run next" in readme and "pytest -q planner/tests" in readme
    out = capsys.readouterr().out
    assert f"wrote {len(example_files()) + 1} files to {dest}" in out
    assert f"cd {dest} && pytest -q planner/tests" in out


def test_the_readme_says_to_activate_the_environment_and_init_prints_the_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "examples" / "README.md").read_text()
    steps = readme.split("## What to run next", 1)[1]
    assert "activate it first" in steps.split("```bash", 1)[0]
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "activate").write_text("")
    assert main([str(tmp_path / "p")]) == 0
    assert (f"next: source {tmp_path}/venv/bin/activate && cd {tmp_path}/p && pytest -q planner/tests"
            in capsys.readouterr().out)
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))  # already active: nothing to say
    assert main([str(tmp_path / "q")]) == 0
    assert f"next: cd {tmp_path}/q && pytest -q planner/tests" in capsys.readouterr().out


def test_every_top_level_entry_is_in_the_readme_table_and_no_file_names_a_path_of_the_repository() -> None:
    readme = (ROOT / "examples" / "README.md").read_text()
    table = {line.split("|")[1].strip(" `").split("/")[0] for line in readme.splitlines() if line.startswith("| `")}
    assert {f.split("/")[0] for f in example_files()} - {"README.md"} | {"agents", "pytest.ini"} <= table, table
    repo_paths = [(f, m) for f in example_files()
                  for m in re.findall(r"\bexamples/[\w./-]+", (ROOT / "examples" / f).read_text(errors="replace"))]
    assert repo_paths == []  # an init project has no examples/ folder


def test_the_readme_s_extension_example_runs_in_an_init_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 0
    [code] = re.findall(r"```python\n(.*?)```", (tmp_path / "README.md").read_text(), flags=re.S)
    assert 'extensions=["planner/planner.py"]' in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(tmp_path / "README.md"), "exec"), {})


@pytest.mark.slow
def test_pytest_in_an_init_project_prints_no_deprecation_warning(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 0
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "planner/tests"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "passed" in r.stdout and "warning" not in (r.stdout + r.stderr).lower(), r.stdout + r.stderr


def test_a_pytest_configuration_of_the_user_s_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    assert main([str(tmp_path)]) == 0
    assert not (tmp_path / "pytest.ini").exists()
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'mine'\n"
    assert ("kept your pyproject.toml: add `asyncio_default_fixture_loop_scope = function` to its pytest settings"
            in capsys.readouterr().out)


def test_dir_defaults_to_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")  # files init does not write are fine
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    assert (tmp_path / "scenarios" / "tool_use.yaml").is_file()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert "pytest -q planner/tests   (README.md lists the rest)" in capsys.readouterr().out


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
