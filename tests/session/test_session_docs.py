"""Run the python examples of docs/session.md and docs/extensions.md, so the docs stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/session.md", "docs/extensions.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        for m in BLOCK.finditer(text):
            out.append((page, text.count("\n", 0, m.start()) + 2, m.group(1)))
    return out


def test_pages_have_examples() -> None:
    pages = {p for p, _, _ in _blocks()}
    assert pages == set(PAGES)


@pytest.mark.parametrize(("page", "line", "code"), _blocks(), ids=lambda v: str(v) if not isinstance(v, str) or
                         len(v) < 40 else None)
def test_doc_example_runs(page: str, line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "autocue-home"))
    exec(compile("\n" * (line - 1) + code, page, "exec"), {"__name__": f"doc_example_{line}"})
