"""Run the python examples of docs/session.md and docs/extensions.md, so the docs stay true."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGES = ["docs/session.md", "docs/extensions.md"]


def _blocks() -> list[tuple[str, int, str]]:
    return [(page, line, code) for page in PAGES for line, code in code_blocks(ROOT / page)]


def test_pages_have_examples() -> None:
    pages = {p for p, _, _ in _blocks()}
    assert pages == set(PAGES)


@pytest.mark.parametrize(("page", "line", "code"), _blocks(), ids=lambda v: str(v) if not isinstance(v, str) or
                         len(v) < 40 else None)
def test_doc_example_runs(page: str, line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "autocue-home"))
    run_block(page, line, code, f"doc_example_{line}")
