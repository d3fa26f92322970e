"""The pytest plugin, run in a child pytest: fixture disposal, failure transcripts, xdist."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = '''
from autocue.testing import call, say, when

SHUTDOWNS = []


def ext(api):
    api.on("session_shutdown", lambda e, ctx: SHUTDOWNS.append(1))


def test_passes(autocue_session):
    t = autocue_session(extension_factories=[ext], mock_tools={"bash": "ok"})
    t.run_sync(when("List files", [call("bash", {"command": "ls"}), say("Done.")]))
    assert t.events.tool_sequence() == ["bash"]


def test_fixture_disposed_the_previous_session():
    assert SHUTDOWNS == [1]


def test_fails_with_transcript(autocue_session):
    t = autocue_session(mock_tools={"bash": "ok"}, mock_ui={"confirm": False})
    t.run_sync(when("Clean up", [call("bash", {"command": "rm -rf build"}), say("Cleaned.")]))
    assert t.events.tool_results_for("bash")[0].text == "something else"


async def test_async_fixture_use(autocue_session):
    t = autocue_session(mock_tools={"bash": "ok"})
    await t.run(when("Async", [call("bash", {"command": "pwd"}), say("ok")]))
    assert t.playbook.consumed == 2
'''


def run_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_child.py").write_text(textwrap.dedent(TESTS))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto", *args, "test_child.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.slow
def test_plugin_fixture_and_failure_transcript(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "-q", "-p", "no:xdist")
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "3 passed" in out and "1 failed" in out
    assert "autocue transcript" in out
    assert "turn 1 ▸ user: Clean up" in out
    assert 'model calls bash({"command": "rm -rf build"})' in out
    assert "✓ bash → ok" in out


@pytest.mark.slow
def test_plugin_under_xdist(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "-q", "-n", "2", "-k", "not previous_session")
    out = proc.stdout
    assert "2 passed" in out and "1 failed" in out, out + proc.stderr
    assert "autocue transcript" in out
