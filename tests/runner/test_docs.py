"""The python examples of docs/runner.md run (in a temp dir), so the page stays true."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGE = ROOT / "docs" / "runner.md"


@pytest.mark.slow
@pytest.mark.parametrize(("line", "code"), code_blocks(PAGE), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_runner_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_block(PAGE, line, code, f"runner_doc_{line}")


def test_the_page_documents_every_failure_kind_and_key() -> None:
    from autocue.runner import FAILURE_KINDS, KEYS

    text = PAGE.read_text()
    for kind in FAILURE_KINDS:
        assert f"| `{kind}` |" in text, kind
    documented = {k for k in KEYS if f"<{k}>" in text}
    families = {k for k in KEYS if k.startswith(("ctrl-", "alt-", "f"))}
    assert set(KEYS) - documented - families == set()
