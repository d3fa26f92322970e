"""The framework matrix (issue 30, requirement 2): every example under examples/frameworks/ is
complete (an agent.py with its one-line ``WIRING``, a requirements.txt of ``==`` pins, a test),
docs/frameworks.md's table lists it, and each example whose venv ``scripts/frameworks.sh`` made
(``.frameworks/<name>/``) passes its test in that venv; one without a venv is skipped with the
command that makes it. The frameworks never go into the dev venv: their pins could clash with ours."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _matrix() -> ModuleType:
    spec = importlib.util.spec_from_file_location("frameworks_matrix", ROOT / "scripts" / "frameworks_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


matrix = _matrix()
EXAMPLES: list[Path] = matrix.examples()
NAMES = [e.name for e in EXAMPLES]


def test_the_matrix_has_the_examples_ci_installs() -> None:
    ci = re.search(r"frameworks\.sh --install (\S+)", (ROOT / "scripts" / "test.sh").read_text())
    assert ci is not None, "scripts/test.sh installs no framework"
    assert {"pydantic-ai", "openai-agents", "langgraph", "llama-index"} <= set(ci.group(1).split(",")) <= set(NAMES)


@pytest.mark.parametrize("example", EXAMPLES, ids=NAMES)
def test_every_example_is_complete(example: Path) -> None:
    wiring = matrix.constants(example).get("WIRING")
    assert wiring and "\n" not in wiring, f"{example.name}/agent.py has no one-line WIRING string constant"
    pins = [line.strip() for line in (example / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9._\-\[\],]+==[0-9][\w.+!-]*", p) for p in pins), pins
    tests = [p.name for p in example.glob("test_*.py")]
    assert tests, f"{example.name} has no test_*.py"
    for t in tests:
        text = (example / t).read_text()
        assert "importorskip" in text, f"{example.name}/{t} must skip when its framework is not installed"


def test_the_docs_table_lists_every_example() -> None:
    page = (ROOT / "docs" / "frameworks.md").read_text()
    table = page.split(matrix.START, 1)[1].split(matrix.END, 1)[0]
    listed = re.findall(r"^\| \[([\w.-]+)\]", table, flags=re.M)
    assert sorted(listed) == NAMES, "stale table: run python scripts/frameworks_matrix.py --write"
    for name in NAMES:
        assert f"\n### {name}\n" in page, f"docs/frameworks.md has no section for {name}"


@pytest.mark.slow
@pytest.mark.timeout(600)  # a framework's imports alone take seconds on a loaded 2-core machine
@pytest.mark.parametrize("name", NAMES)
def test_the_example_passes_in_its_own_venv(name: str) -> None:
    if not matrix.python_of(name).exists():
        pytest.skip(f"{name} is not installed: {matrix.install_command(name)}")
    done = matrix.run_example(name)
    assert done.returncode == 0, f"{name} failed in .frameworks/{name}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    assert re.search(r"\d+ passed", done.stdout) and "skipped" not in done.stdout, done.stdout[-2000:]
