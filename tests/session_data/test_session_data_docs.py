"""Run the python examples of docs/sessions.md, so the page stays true."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import code_blocks, run_block

PAGE = Path(__file__).resolve().parents[2] / "docs" / "sessions.md"


def _blocks() -> list[tuple[int, str]]:
    return code_blocks(PAGE)


def test_page_has_examples() -> None:
    assert len(_blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), _blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_sessions_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "autocue-home"))
    run_block(PAGE, line, code, f"sessions_doc_{line}")
