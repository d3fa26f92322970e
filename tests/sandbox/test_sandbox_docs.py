"""docs/sandbox.md stays true: its Python examples run, and its YAML smoke file plays."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from autocue.cli.verify_install import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "sandbox.md"
TEXT = PAGE.read_text(encoding="utf-8")

pytestmark = pytest.mark.slow


def _blocks(lang: str) -> list[tuple[int, str]]:
    return [(TEXT.count("\n", 0, m.start()) + 2, textwrap.dedent(m.group(1)))
            for m in re.finditer(rf"^ *```{lang}\n(.*?)^ *```", TEXT, re.S | re.M)]


@pytest.mark.parametrize(("line", "code"), _blocks("python"), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_python_example_runs(line: int, code: str, sandbox_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # the page's examples use the default cache: point it at this run's shared cache
    monkeypatch.setattr("autocue.sandbox.check.default_cache_dir", lambda: sandbox_cache)
    exec(compile("\n" * (line - 1) + code, str(PAGE), "exec"), {"__name__": f"sandbox_doc_{line}"})


def test_yaml_smoke_example_plays_with_the_cli(sandbox_cache: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (yaml_block,) = [code for _, code in _blocks("yaml")]
    smoke = tmp_path / "smoke.yaml"
    smoke.write_text(yaml_block, encoding="utf-8")
    code = main([str(ROOT / "examples" / "planner"), "--expect-extensions", "1", "--expect-tool", "plan_list",
                 "--expect-tool", "plan_propose", "--smoke", str(smoke), "--cache-dir", str(sandbox_cache)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "smoke: passed (plan_list, plan_list, plan_mode)" in out
