"""The python examples of docs/scenarios.md run as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import code_blocks, run_block
from scenario_paths import ROOT

PAGE = ROOT / "docs" / "scenarios.md"


def blocks() -> list[tuple[int, str]]:
    return code_blocks(PAGE)


def test_page_has_examples() -> None:
    assert len(blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_block(PAGE, line, code, f"scenario_doc_{line}")
