"""The python examples of docs/record.md run as written (in a temp working directory)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGE = ROOT / "docs" / "record.md"
BLOCKS = code_blocks(PAGE)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"record.md:{line}" for line, _ in BLOCKS])
def test_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_block(PAGE, line, code, f"record_doc_{line}")
