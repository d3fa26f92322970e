"""Run the python examples of README.md and the core docs pages, so the docs stay true."""

from __future__ import annotations

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGES = ["README.md", "docs/agent.md", "docs/testing.md", "docs/architecture.md"]


def _blocks() -> list[tuple[str, int, str]]:
    return [(page, line, code) for page in PAGES for line, code in code_blocks(ROOT / page)]


@pytest.mark.parametrize(("page", "line", "code"), _blocks(), ids=lambda v: str(v)[:40] if isinstance(v, str) else v)
def test_example_runs(page: str, line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # examples use repo-relative paths like examples/planner/planner.py
    ns = run_block(page, line, code, f"doc_example_{line}")
    # A block that defines pytest tests: run them, giving fixtures the harness provides.
    for name, fn in list(ns.items()):
        if name.startswith("test_") and callable(fn):
            from autocue.testing import create_test_session

            made = []

            def factory(made: list[object] = made, **options: object) -> object:
                t = create_test_session(**options)  # type: ignore[arg-type]
                made.append(t)
                return t

            try:
                fn(autocue_session=factory)
            finally:
                for t in made:
                    t.dispose()
