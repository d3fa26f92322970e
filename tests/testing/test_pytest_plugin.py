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


FAILING = '''
from autocue.llm.types import TextContent
from autocue.mockllm import serve
from autocue.script import Script, ScriptedResponse, Turn
from autocue.testing import call, create_test_session, run_scenario, say, when

LONG = "x" * 500
SCENARIO = """\
name: hello
initialPrompt: "Write hello.txt"
timeline:
  - llmResponse:
      - assistant: [[0, "Done."]]
  - assert:
      fs: {exists: [hello.txt]}
"""


def test_exhausted():
    with create_test_session(mock_tools={"bash": "line one\\nline two " + LONG}) as t:
        t.run_sync(when("List files", [call("bash", {"command": "ls"})]))


def test_leftover():
    with create_test_session() as t:
        t.run_sync(when("Hi", [say("Hello."), say("Again.")]))


async def test_async_exhausted():
    async with create_test_session(mock_tools={"bash": "ok"}) as t:
        await t.run(when("List files", [call("bash", {"command": "ls"})]))


def test_server_not_consumed():
    with serve(Script([Turn("hi", [ScriptedResponse([TextContent("hello")])])], name="greet")) as server:
        server.assert_all_consumed()


def test_scenario_assert(tmp_path):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    run_scenario(tmp_path / "s.yaml")
'''


@pytest.mark.slow
def test_failures_show_the_tests_line_and_the_message_not_autocues_frames(tmp_path: Path) -> None:
    (tmp_path / "test_failing.py").write_text(FAILING)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-o",
                           "asyncio_mode=auto", "test_failing.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    out = proc.stdout
    assert "5 failed" in out, out + proc.stderr
    for frame in ("autocue/testing/session.py", "autocue/testing/playbook.py", "autocue/mockllm/server.py",
                  "autocue/testing/scenario_runner.py", "asyncio/base_events.py", "self = Playbook(", "direct cause"):
        assert frame not in out, (frame, out)
    def at(needle: str) -> str:  # the test's own line that ran into the error
        return f"test_failing.py:{next(n for n, x in enumerate(FAILING.splitlines(), 1) if needle in x)}"

    assert out.count(at('when("List files"') + ": PlaybookExhaustedError") == 1
    assert at('when("Hi"') + ": PlaybookNotConsumedError" in out and "1 action remaining" in out
    assert f"{at('await t.run(')}: PlaybookExhaustedError" in out and "but only 1 was scripted" in out
    assert f"{at('server.assert_all_consumed()')}: AssertionError" in out
    assert "no session started: nothing called the server" in out
    assert f"{at('run_scenario(tmp_path')}: ScenarioAssertionError" in out and "FAIL fs.exists hello.txt" in out
    # the transcript: real newlines, under their label, and a 500-character line whole
    assert "    ✓ bash → line one\n        line two " + "x" * 500 + "\n" in out
    assert "chars)" not in out and "\\n" not in out.split("autocue transcript")[1]
