"""Run the python examples of docs/tools.md, so the page stays true."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import code_blocks, run_block

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def _blocks() -> list[tuple[int, str]]:
    return code_blocks(PAGE)


def test_page_has_examples() -> None:
    assert len(_blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), _blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_tools_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run_block(PAGE, line, code, f"tools_doc_{line}")
