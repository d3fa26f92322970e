"""autocue's pytest plugin costs nothing until used: a pytest run that does not use autocue imports
nothing of it but the package root and the entry point.

The child pytest sees autocue installed the way pip would install this tree: a ``dist-info``
with the ``pytest11`` entry points of this tree's ``pyproject.toml``, first on ``PYTHONPATH``
beside this tree's ``src``; a ``pytest11`` name of another installed autocue that this tree does not
declare is blocked, so the child runs exactly this tree's plugins.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import autocue

SRC = Path(autocue.__file__).resolve().parents[1]
PYPROJECT = SRC.parent / "pyproject.toml"
AT_START = ["autocue", "autocue.errors", "autocue.pytest_plugin"]  # the package root (AutocueError) and the entry
CHILD = ("import json, sys, pytest; pytest.main(sys.argv[1:]); "
         "print('MODULES', json.dumps(sorted(m for m in sys.modules if m == 'autocue' or m.startswith('autocue.'))))")


def entry_points() -> dict[str, str]:
    return dict(tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]["pytest11"])


def run_child(tmp_path: Path, test: str, *args: str) -> tuple[list[str], str]:
    """The autocue modules a child pytest imported (by its end), and its output."""
    site = tmp_path / "site" / "autocue-0.0.0.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: autocue\nVersion: 0.0.0\n")
    (site / "entry_points.txt").write_text("[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points().items()))
    installed = {ep.name for d in importlib.metadata.distributions() if d.metadata["Name"] == "autocue"
                 for ep in d.entry_points if ep.group == "pytest11"}
    blocked = [a for name in sorted(installed - set(entry_points())) for a in ("-p", f"no:{name}")]
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "test_one.py").write_text(test)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), str(SRC)])
    proc = subprocess.run([sys.executable, "-c", CHILD, "-p", "no:cacheprovider", *blocked, *args], cwd=project,
                          env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout
    assert "MODULES" in out, out + proc.stderr
    return json.loads(out.rsplit("MODULES", 1)[1]), out


def test_one_entry_point_whose_module_imports_only_stdlib_and_pytest() -> None:
    import ast

    assert entry_points() == {"autocue": "autocue.pytest_plugin"}
    tree = ast.parse((SRC / "autocue" / "pytest_plugin.py").read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in top if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= set(sys.stdlib_module_names) | {"pytest"}, names


@pytest.mark.slow
def test_collecting_a_test_that_does_not_use_autocue_imports_only_the_entry_point(tmp_path: Path) -> None:
    modules, out = run_child(tmp_path, "def test_one():\n    assert True\n", "--co", "-q")
    assert "1 test collected" in out, out
    assert modules == AT_START


@pytest.mark.slow
def test_running_and_failing_a_test_that_does_not_use_autocue_imports_only_the_entry_point(tmp_path: Path) -> None:
    modules, out = run_child(tmp_path, "def test_one():\n    assert False\n", "-q", "-p", "no:xdist")
    assert "1 failed" in out and "autocue transcript" not in out, out
    assert modules == AT_START


@pytest.mark.slow
def test_the_options_are_there_at_start(tmp_path: Path) -> None:
    modules, out = run_child(tmp_path, "", "--help")
    for option in ("--autocue-record", "--autocue-html", "--autocue-scenarios", "--autocue-agent-override",
                   "--autocue-timeout", "autocue_scenarios", "--autocue-coverage", "--autocue-coverage-fail-under"):
        assert option in out
    assert modules == AT_START


@pytest.mark.slow
def test_the_fixture_loads_the_harness_on_first_use(tmp_path: Path) -> None:
    test = ("def test_one(autocue_session):\n"
            "    from autocue.testing import say, when\n"
            "    t = autocue_session()\n"
            "    t.run_sync(when('Hi', [say('Hello.')]))\n"
            "    assert False\n")
    modules, out = run_child(tmp_path, test, "-q", "-p", "no:xdist")
    assert "1 failed" in out and "autocue transcript" in out and "turn 1 ▸ user: Hi" in out, out
    assert "autocue view" in out and "autocue.testing.pytest_plugin" in modules


def test_the_entry_points_spelled_out_names_match_their_sources() -> None:
    from autocue import pytest_plugin
    from autocue.runner.pytest_plugin import GOLDENS
    from autocue.scenario import SCENARIO_SUFFIXES
    from autocue.suite_coverage import DEFAULT_PATH
    from autocue.testing.recorded import RECORD_MODES

    assert pytest_plugin.COVERAGE_PATH == DEFAULT_PATH
    assert pytest_plugin.RECORD_MODES == RECORD_MODES
    assert pytest_plugin.SCENARIO_SUFFIXES == SCENARIO_SUFFIXES
    assert pytest_plugin.GOLDENS == GOLDENS
