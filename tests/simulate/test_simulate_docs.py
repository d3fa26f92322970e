"""docs/simulate.md stays true: its Python examples run, its CLI options exist."""

from __future__ import annotations

import subprocess
import sys

import pytest
from doc_blocks import DOCS, ROOT, code_blocks, run_block

PAGE = DOCS / "simulate.md"


@pytest.mark.parametrize(("line", "code"), code_blocks(PAGE), ids=lambda v: str(v)[:30])
def test_python_examples_run(line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run_block(PAGE, line, code, f"simulate_doc_{line}")


def test_documented_options_exist() -> None:
    out = subprocess.run([sys.executable, "-m", "autocue.cli.main", "simulate", "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    text = PAGE.read_text()
    for opt in ("--host", "--port", "--speed", "--loop"):
        assert opt in out and opt in text
