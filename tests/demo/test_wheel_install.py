"""Installed, not only cloned: the built wheel in a fresh venv runs ``autocue demo`` in an empty directory
(every section passes) and ``autocue init``, and what init wrote runs as its README says."""

from __future__ import annotations

import re
import shlex
import subprocess
import zipfile
from pathlib import Path

import pytest
from installed_autocue import autocue_requirements, build_wheel, make_venv, user_env

from autocue.cli.demo import SECTIONS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_the_wheel_in_a_fresh_venv_runs_the_demo_and_init(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "autocue/examples/planner/tests/test_planner.py" in names and "autocue/examples/README.md" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    python = make_venv(tmp_path / "venv", wheel=wheel, requirements=autocue_requirements(wheel),
                       cache=tmp_path / "house")
    env = user_env(python, index_url="http://127.0.0.1:9/simple", cache=tmp_path / "cache")  # nothing to download
    autocue = str(python.parent / "autocue")
    where = subprocess.run([python, "-c", "import autocue; print(autocue.__file__)"], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=60)
    assert where.stdout.strip().startswith(str(tmp_path / "venv")), where.stdout + where.stderr

    project = tmp_path / "project"
    project.mkdir()
    demo = subprocess.run([autocue, "demo"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert demo.returncode == 0, demo.stdout[-4000:] + demo.stderr[-2000:]
    summary = demo.stdout.split("== summary", 1)[1]
    assert summary.count("[PASS]") == len(SECTIONS) and "[FAIL]" not in summary
    assert demo.stdout.rstrip().splitlines()[-1] == f"{len(SECTIONS)} passed, 0 failed"
    assert list(project.iterdir()) == []

    init = subprocess.run([autocue, "init"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert init.returncode == 0, init.stderr
    readme = (project / "README.md").read_text()
    block = re.search(r"## What to run next.*?```bash\n(.*?)```", readme, flags=re.S)
    assert block is not None, readme
    commands = [ln for ln in block.group(1).splitlines() if ln.strip()]
    assert commands[0] == "pytest -q planner/tests" and len(commands) >= 3
    for line in commands:  # the README's next steps, run as written
        proc = subprocess.run(shlex.split(line), cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}"

    again = subprocess.run([autocue, "init"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and again.stderr.startswith("autocue init: README.md already exists")
