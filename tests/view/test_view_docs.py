"""docs/view.md stays true: its Python examples run, its images exist, its CLI options exist."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from doc_blocks import DOCS, ROOT, code_blocks, run_block

PAGE = DOCS / "view.md"


@pytest.mark.parametrize(("line", "code"), code_blocks(PAGE), ids=lambda v: str(v)[:30])
def test_python_examples_run(line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run_block(PAGE, line, code, f"view_doc_{line}")


def test_screenshots_exist_and_are_small() -> None:
    images = re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", PAGE.read_text())
    assert len(images) == 4
    for rel in images:
        path = DOCS / rel
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", rel
        assert path.stat().st_size < 150_000, rel


def test_documented_options_exist() -> None:
    out = subprocess.run([sys.executable, "-m", "autocue.cli.main", "view", "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    for opt in ("-o", "--open"):
        assert opt in out
    plugin = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, timeout=60)
    assert "--autocue-html" in plugin.stdout and "--autocue-html" in PAGE.read_text()
