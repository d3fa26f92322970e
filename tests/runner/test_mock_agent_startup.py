"""The mock agent's start-up: it imports only what its plan uses, and keeps a bytecode cache.

Its process starts once per ``--agent mock`` scenario, so what it imports is most of a run's
cost (benchmarks/bench_runner.py): the agent loop, the executor, the YAML loader and the tools
the plan does not call stay out of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.runner.mockagent import bytecode_cache, mock_agent_argv

PLAN = {"name": "startup", "prompt": "go", "pos": "s.yaml:1:1", "events": [
    {"reply": [{"text": "Reading."}, {"tool": {"name": "readFile", "args": {"path": "notes.txt"}, "id": None,
                                                "status": "ok", "pos": "s.yaml:5:7", "result": "hi",
                                                "mapped": ["read", {"path": "notes.txt"}], "map_error": None}}]},
]}

# runs the agent's CLI as `python -m autocue.cli.main mock-agent` does, then lists what it imported
LIST_MODULES = ("import sys\nfrom autocue.cli.main import main\ncode = main(sys.argv[1:])\n"
                "print('MODULES', ' '.join(sorted(sys.modules)))\nsys.exit(code)\n")

NOT_IMPORTED = ("autocue.agent.agent", "autocue.agent.loop", "autocue.llm.events", "autocue.llm.stream",
                "autocue.tools.bash", "autocue.tools.grep", "autocue.tools.edit", "autocue.tools.write",
                "autocue.tools.find", "autocue.tools.ls", "autocue.runner.executor", "autocue.runner.report",
                "autocue.runner.keys", "autocue.scenario", "yaml", "difflib")


def _plan(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("hi\n", encoding="utf-8")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    return plan


def test_the_mock_agent_imports_only_the_tools_its_plan_calls(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    proc = subprocess.run([sys.executable, "-c", LIST_MODULES, "mock-agent", "--plan", str(plan)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "✓ readFile: hi" in proc.stdout
    modules = set(proc.stdout.split("MODULES ", 1)[1].split())
    assert "autocue.tools.read" in modules and "autocue.runner.mockagent" in modules
    assert sorted(modules.intersection(NOT_IMPORTED)) == []


def test_the_executor_s_mock_agent_writes_its_own_bytecode_cache(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    plan = _plan(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    cache = tmp_path / "cache" / "autocue" / "pycache"
    assert bytecode_cache() == cache
    # `autocue mock-agent` started by hand keeps to PYTHONDONTWRITEBYTECODE
    plain = subprocess.run([sys.executable, "-m", "autocue.cli.main", "mock-agent", "--plan", str(plan)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert not cache.exists()
    # the executor's command line gives it a cache outside the source tree, which it fills
    argv = mock_agent_argv(plan)
    assert argv[1:3] == ["-X", f"pycache_prefix={cache}"] and argv[-3:] == ["mock-agent", "--plan", str(plan)]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cached = {p.name.split(".")[0] for p in cache.rglob("*.pyc")}
    assert {"main", "mock_agent", "mockagent", "read", "argparse", "pathlib"} <= cached, sorted(cached)
    # the second start compiles nothing: every module it imports is in the cache (or frozen)
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*.pyc")}
    again = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stdout + again.stderr
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.pyc")} == before
