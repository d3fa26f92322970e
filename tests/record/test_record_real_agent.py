"""A real agent CLI (pi, else opencode) recorded through ``autocue record`` replays to the same files.

The upstream is ``autocue serve`` playing a scenario that writes two files and answers; the
agent runs its docs/mock-server.md recipe against the proxy, then again, in a fresh workspace
and home, against ``autocue serve`` playing only the recording. Skipped, with the reason, when
neither CLI is installed (``bash scripts/real-agents.sh``, or ``AUTOCUE_AGENTS_DIR``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "realagents"))  # the recipes' helpers
from realagent_recipes import (
    AGENTS,
    Agent,
    Served,
    autocue_serve,
    find_cli,
    run_recipe,
    skip_reason,
)

UPSTREAM = """\
name: write-two-files
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing the files."]]
      - writeFile: {path: hello.txt, content: "hello from a recording\\n"}
  - llmResponse:
      - writeFile: {path: notes/ünï.md, content: "# Notes ✓\\n"}
  - llmResponse:
      - assistant: [[0, "Done: both files are written."]]
"""


def _agent() -> Agent:
    candidates = [a for a in AGENTS if a.name in ("pi", "opencode")]
    for a in candidates:
        if find_cli(a) is not None:
            return a
    pytest.skip(" / ".join(skip_reason(a) for a in candidates))


@contextmanager
def autocue_record(upstream: str, out: Path) -> Iterator[Served]:
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "record", "--upstream", upstream, "-o",
                             str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"autocue record did not start: {proc.stderr.read() if proc.stderr else ''}")
        info = json.loads(line)
        yield Served(info["url"], info["port"], proc)
    finally:
        proc.terminate()
        proc.wait(10)


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_real_agent_recorded_through_the_proxy_replays_to_the_same_workspace_files(tmp_path: Path) -> None:
    agent = _agent()
    dirs = {n: tmp_path / n for n in ("home1", "work1", "home2", "work2")}
    for d in dirs.values():
        d.mkdir()
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    out = tmp_path / "rec"
    with autocue_serve(upstream, dirs["work1"]) as up, autocue_record(up.url, out) as proxy:
        first = run_recipe(agent, proxy, dirs["home1"], dirs["work1"])
        assert first.returncode == 0, first.output[-3000:]
        status = up.session(first.key)
    assert status["errors"] == [] and status["remaining"] == 0, status
    recorded = _files(dirs["work1"])
    assert recorded == {"hello.txt": "hello from a recording\n", "notes/ünï.md": "# Notes ✓\n"}
    (path,) = out.glob("*.yaml")
    assert first.key not in path.read_text(encoding="utf-8")

    with autocue_serve(path, dirs["work2"]) as replay:
        second = run_recipe(agent, replay, dirs["home2"], dirs["work2"])
        assert second.returncode == 0, second.output[-3000:]
        status = replay.session(second.key)
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (3, 0), status
    assert _files(dirs["work2"]) == recorded
