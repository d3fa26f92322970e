"""The examples of docs/providers.md and docs/agent-cli.md run and say what the pages claim."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["docs/providers.md", "docs/agent-cli.md"]


def _blocks(lang: str) -> list[tuple[str, int, str]]:
    out = []
    pattern = re.compile(rf"```{lang}\n(.*?)```", re.S)
    for page in PAGES:
        text = (ROOT / page).read_text()
        for m in pattern.finditer(text):
            out.append((page, text.count("\n", 0, m.start()) + 2, m.group(1)))
    return out


@pytest.mark.parametrize(("page", "line", "code"), _blocks("python"), ids=lambda v: str(v)[:30])
def test_python_example(page: str, line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile("\n" * (line - 1) + code, page, "exec"), {"__name__": f"doc_{line}"})


def test_bash_example(tmp_path: Path) -> None:
    [(_, _, script)] = _blocks("bash")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOCUE_")}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    r = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "The notes say the answer is 42."
    assert lines[1].startswith('{"type":"session","version":3,"id":"')
    assert lines[2] == "1"
    assert len(lines) == 4 and lines[3].endswith(".jsonl")
