"""``autocue verify-install`` where a user runs it: autocue installed from its wheel with pip, no hatchling.

The package index is a real one on loopback (a PEP 503 index of hatchling and its
dependencies, repacked from this environment), configured the way a user configures pip
(``PIP_INDEX_URL``); it counts what it served, so "nothing was downloaded" is checked, not assumed.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from installed_autocue import (
    ROOT,
    LocalIndex,
    autocue_requirements,
    build_wheel,
    make_venv,
    user_env,
    wheelhouse,
)

from autocue.sandbox.wheels import Req

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@dataclass
class Installed:
    wheel: Path
    python: Path
    """A venv with autocue installed from its wheel (and pip), without hatchling."""
    hatchling: list[Path]
    """hatchling and its dependencies, as wheels, for the local index."""
    deps_python: Path | None = None


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("from-wheel")
    wheel = build_wheel(base / "dist")
    python = make_venv(base / "venv", wheel=wheel, requirements=autocue_requirements(wheel), cache=base / "house")
    assert subprocess.run([python, "-c", "import hatchling"], capture_output=True).returncode == 1
    hatch = sorted(wheelhouse(base / "hatchling-house", [Req("hatchling")]).glob("*.whl"))
    assert any(w.name.startswith("hatchling-") for w in hatch)
    return Installed(wheel, python, hatch)


def _verify(python: Path, tmp_path: Path, index_url: str, *args: str,
            extra_env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    planner = tmp_path / "planner"
    if not planner.exists():
        shutil.copytree(ROOT / "examples" / "planner", planner, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    proc = subprocess.run(
        [python, "-m", "autocue.cli.main", "verify-install", str(planner), "--expect-extensions", "1",
         "--expect-tool", "plan_mode", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=500,
        env=user_env(python, index_url=index_url, cache=cache, extra=extra_env),
    )
    return proc, cache / "sandbox"


def test_by_default_missing_build_requirements_come_from_the_reachable_index(installed: Installed,
                                                                             tmp_path: Path) -> None:
    with LocalIndex(installed.hatchling) as index:
        proc, cache = _verify(installed.python, tmp_path, index.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sandbox install check of autocue-planner 0.1.0" in proc.stdout and ": PASSED" in proc.stdout
    assert (f"  note: building planner: its build requirements ['hatchling>=1.24'] are not installed here, so they "
            f"were fetched from the configured index ({index.url}); --offline forbids this") in proc.stdout
    assert "/simple/hatchling/" in index.requests
    # the autocue installed from a wheel is reused, not rebuilt from a source tree
    assert "  note: autocue 0.1.0: the installed distribution is reused" in proc.stdout
    assert sorted(p.name for p in (cache / "autocue").iterdir()) == ["installed-0.1.0"]


def test_offline_never_contacts_the_index(installed: Installed, tmp_path: Path) -> None:
    with LocalIndex(installed.hatchling) as index:
        proc, _ = _verify(installed.python, tmp_path, index.url, "--offline", "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    [problem] = result["problems"]
    assert problem["kind"] == "build_failed"
    assert "--offline forbids downloading them" in problem["explanation"]
    assert "drop --offline" in problem["fix"]
    assert index.requests == []


def test_an_unreachable_index_is_named(installed: Installed, tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/simple"
    proc, _ = _verify(installed.python, tmp_path, url, "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [problem] = json.loads(proc.stdout)["problems"]
    assert problem["kind"] == "build_failed"
    assert f"no configured package index is reachable ({url})" in problem["explanation"]


def test_online_reaches_the_build_of_autocues_own_wheel(installed: Installed, tmp_path: Path) -> None:
    """autocue run from a source tree (not installed) in a venv without hatchling: its wheel must be built,
    and --online lets that build fetch hatchling too."""
    deps = make_venv(tmp_path / "deps-venv", wheel=None, requirements=autocue_requirements(installed.wheel),
                     cache=tmp_path / "house")
    with LocalIndex(installed.hatchling) as index:
        proc, cache = _verify(deps, tmp_path, index.url, "--online", extra_env={"PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"  note: building {ROOT.name}: its build requirements ['hatchling>=1.24'] are not installed" in proc.stdout
    [built] = [p for p in (cache / "autocue").iterdir() if not p.name.startswith("installed-")]
    assert [w.name for w in built.glob("*.whl")] == ["autocue-0.1.0-py3-none-any.whl"]
