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
    monkeypatch.setenv("AUTOCUE_CHECKS_ROOT", str(tmp_path / "root"))
    run_block(PAGE, line, code, f"doc_example_{line}")


def test_the_cli_synopsis_names_every_check_once() -> None:
    """The page's ``autocue check TOOL ...`` lines are the CLI's tools (the old name ``autocue test`` is not taught)."""
    from autocue.cli.checks import TOOLS

    text = PAGE.read_text(encoding="utf-8")
    named = [line.split()[2] for line in text.splitlines() if line.startswith("autocue check ")]
    assert sorted(named) == sorted(TOOLS)
    assert "autocue test " not in text
