"""Run the python examples of README.md and the core docs pages, so the docs stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "docs/agent.md", "docs/testing.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for page in PAGES:
        path = ROOT / page
        if not path.exists():
            continue
        text = path.read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 2
            out.append((page, line, m.group(1)))
    return out


@pytest.mark.parametrize(("page", "line", "code"), _blocks(), ids=lambda v: str(v)[:40] if isinstance(v, str) else v)
def test_example_runs(page: str, line: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # examples use repo-relative paths like examples/planner/planner.py
    source = "\n" * (line - 1) + code
    ns: dict[str, object] = {"__name__": f"doc_example_{line}"}
    exec(compile(source, f"{page}", "exec"), ns)
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
