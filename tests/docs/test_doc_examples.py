"""Run the python examples of README.md and the core docs pages, so the docs stay true."""

from __future__ import annotations

import inspect
from typing import Any

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
            run_doc_test(fn)


def run_doc_test(fn: Any) -> None:
    """Run a test a block defines with the fixtures it asks for: ``autocue_session`` (a factory
    of ``TestSession``s) and ``autocue_llm`` (a ``MockLLM`` for its ``autocue_llm`` marker)."""
    from autocue.testing import MockLLM, create_test_session

    made: list[Any] = []

    def factory(**options: Any) -> Any:
        t = create_test_session(**options)
        made.append(t)
        return t

    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    llm = None
    if "autocue_session" in params:
        kwargs["autocue_session"] = factory
    if "autocue_llm" in params:
        mark = next(m for m in getattr(fn, "pytestmark", []) if m.name == "autocue_llm")
        llm = kwargs["autocue_llm"] = MockLLM(*mark.args, **mark.kwargs)
    try:
        fn(**kwargs)
        if llm is not None:
            llm.assert_ok()
    finally:
        for t in made:
            t.dispose()
        if llm is not None:
            llm.close()
