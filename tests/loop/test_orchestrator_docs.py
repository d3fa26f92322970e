"""Run the python examples of docs/orchestrator.md so the page stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "orchestrator.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks() -> list[tuple[int, str]]:
    text = PAGE.read_text()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]


def test_page_has_examples() -> None:
    assert len(_blocks()) >= 4


@pytest.mark.parametrize(("line", "code"), _blocks(), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_TESTTOOLS_ROOT", str(tmp_path / "root"))
    exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), {"__name__": f"doc_example_{line}"})
