"""Helpers of the runner tests: write a scenario (and its program) into a temp dir, run it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from autocue.runner import RunReport, ScenarioResult, run_scenarios

ECHO_PROG = textwrap.dedent("""\
    import sys
    print("ready", flush=True)
    for line in sys.stdin:
        line = line.strip()
        print("got", line, flush=True)
        if line == "bye":
            break
    print("end", flush=True)
""")

RAW_KEYS_PROG = textwrap.dedent("""\
    import os, sys, termios, tty
    tty.setraw(0)
    os.write(1, b"raw\\r\\n")
    while True:
        data = os.read(0, 100)
        os.write(1, (repr(data) + "\\r\\n").encode())
        if data.startswith(b"q"):
            break
""")


def scenario(tmp: Path, body: str, name: str = "s.yaml") -> Path:
    path = tmp / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def files_block(**files: str) -> str:
    """A ``repo.files`` YAML block (indented for the top level) holding programs and data."""
    lines = ["repo:", "  files:"]
    for name, text in files.items():
        lines.append(f"    - path: {name}")
        lines.append("      contents: |")
        lines.extend("        " + x if x else "" for x in text.splitlines())
    return "\n".join(lines) + "\n"


def run(path: Path, **options: Any) -> RunReport:
    options.setdefault("out", path.parent / "out")
    options.setdefault("timeout", 30)
    options.setdefault("ci", False)  # these scenarios live in temp dirs: their first run writes the goldens
    return run_scenarios(path, **options)


def one(path: Path, **options: Any) -> ScenarioResult:
    [result] = run(path, **options).scenarios
    return result


def kinds(result: ScenarioResult) -> list[str]:
    return [f.kind for f in result.failures]


def at(path: Path, needle: str, nth: int = 0) -> str:
    """``file:line:col`` of the timeline item (``- ...``) on the ``nth`` line containing ``needle``."""
    hits = [(n, line) for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    n, line = hits[nth]
    return f"{path}:{n}:{line.index('- ') + 3}"
