"""Run the python examples of docs/sessions.md, so the page stays true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "sessions.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks() -> list[tuple[int, str]]:
    text = PAGE.read_text()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in BLOCK.finditer(text)]


def test_page_has_examples() -> None:
    assert len(_blocks()) >= 5


@pytest.mark.parametrize(("line", "code"), _blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_sessions_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "autocue-home"))
    source = "\n" * (line - 1) + code
    exec(compile(source, str(PAGE), "exec"), {"__name__": f"sessions_doc_{line}"})
