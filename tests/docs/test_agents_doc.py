"""The python examples of docs/agents.md run (in a temp dir), and the page names every built-in profile."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGE = ROOT / "docs" / "agents.md"


@pytest.mark.parametrize(("line", "code"), code_blocks(PAGE), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_agents_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_block(PAGE, line, code, f"agents_doc_{line}")


def test_the_page_has_a_row_per_builtin_profile_and_the_matrix_markers() -> None:
    from autocue.runner.agents import BUILTIN

    text = PAGE.read_text()
    for name in BUILTIN:
        assert f"| `{name}` |" in text, name
    assert "<!-- matrix:start -->" in text and "<!-- matrix:end -->" in text
