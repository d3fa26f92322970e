"""Run the python examples of docs/orchestrator.md so the page stays true."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import code_blocks, run_block

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "orchestrator.md"


def _blocks() -> list[tuple[int, str]]:
    return code_blocks(PAGE)


def test_page_has_examples() -> None:
    assert len(_blocks()) >= 4


@pytest.mark.parametrize(("line", "code"), _blocks(), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_TESTTOOLS_ROOT", str(tmp_path / "root"))
    run_block(PAGE, line, code, f"doc_example_{line}")
