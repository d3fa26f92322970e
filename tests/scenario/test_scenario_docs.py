"""The python examples of docs/scenarios.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scenario_paths import ROOT

PAGE = ROOT / "docs" / "scenarios.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def blocks() -> list[tuple[int, str]]:
    text = PAGE.read_text()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]


def test_page_has_examples() -> None:
    assert len(blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), {"__name__": f"scenario_doc_{line}"})
