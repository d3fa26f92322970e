"""``--autocue-coverage``: a pytest run (in a child process, with and without xdist) reports the scripted
reply no test was served and the declared tool no scenario called, writes them as JSON, and
``--autocue-coverage-fail-under`` fails the run; the collector's merge and score on their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autocue import suite_coverage

SCENARIO = """\
name: weather
initialPrompt: "Weather in Paris?"
timeline:
  - llmResponse:
      - agentToolUse:
          toolName: get_weather
          toolCallId: call_1
          args: {city: Paris}
  - llmResponse:
      - assistant:
          - [0, "Sunny in Paris."]
  - llmResponse:
      - assistant:
          - [0, "A reply no test reaches."]
"""

TESTS = '''
from pathlib import Path

from autocue.testing import MockLLM

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("get_weather", "write_file")
]


def test_agent():
    with MockLLM(Path(__file__).with_name("weather.yaml")) as llm:
        c = llm.openai(max_retries=0)
        messages = [{"role": "user", "content": "Weather in Paris?"}]
        r = c.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        assert r.choices[0].message.tool_calls[0].function.name == "get_weather"
        r = c.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        assert r.choices[0].message.content == "Sunny in Paris."


def test_served_by_a_server_process():
    """An ``autocue serve`` the test starts reports into the run through the environment."""
    import json, subprocess, sys

    import openai

    proc = subprocess.Popen([sys.executable, "-m", "autocue", "serve", str(Path(__file__).with_name("weather.yaml")),
                             "--json"], stdout=subprocess.PIPE, text=True)
    try:
        url = json.loads(proc.stdout.readline())["url"]
        c = openai.OpenAI(base_url=url + "/v1", api_key="served", max_retries=0)
        r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "Weather in Paris?"}],
                                      tools=TOOLS)
        assert r.choices[0].message.tool_calls[0].function.name == "get_weather"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def guard(api):
    api.on("tool_call", lambda event, ctx: None)
    api.on("user_bash", lambda event, ctx: None)  # no test types a ! command: never fired

    async def ask(ctx):
        """Ask the user."""
        await ctx.ui.confirm("Sure?", "really")
        return "asked"

    api.register_tool(ask)


def test_harness():
    from autocue.testing import call, create_test_session, say, when

    with create_test_session(extension_factories=[guard]) as t:
        t.run_sync(when("go", [call("ask"), say("ok")]))
'''


def run_pytest(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    (tmp_path / "weather.yaml").write_text(SCENARIO)
    (tmp_path / "test_agent.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    out = tmp_path / "cov.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_agent.py",
                           f"--autocue-coverage={out}", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=180)
    assert out.exists(), proc.stdout + proc.stderr
    return proc, json.loads(out.read_text())


def check_report(proc: subprocess.CompletedProcess[str], report: dict[str, Any]) -> None:
    out = proc.stdout
    assert "autocue coverage: 60% (2/3 scripted replies served, 1/2 declared tools called)" in out, out
    assert "weather.yaml: 2/3 served by 2 session(s)" in out, out
    assert "not served: reply 3 at " in out and "weather.yaml:12" in out, out
    assert "write_file: NEVER CALLED by any scenario" in out and "get_weather: called" in out, out
    [scenario] = report["scenarios"]
    assert scenario["source"].endswith("weather.yaml") and scenario["served"] == 2 and scenario["total"] == 3
    assert sorted(s["served"] for s in scenario["sessions"]) == [[0], [0, 1]]
    assert [s["n"] for s in scenario["unserved"]] == [3] and scenario["unserved"][0]["at"].endswith("weather.yaml:12")
    assert {t["tool"]: t["called"] for t in report["tools"]} == {"get_weather": True, "write_file": False}
    hooks = {h["event"]: h["fired"] for h in report["hooks"]}
    assert hooks["tool_call"] == 1 and hooks["user_bash"] == 0, report["hooks"]
    assert "  user_bash of " in out and ": NEVER FIRED" in out, out
    assert report["dialogs"] == [{"kind": "confirm", "title": "Sure?", "count": 1}]
    assert "UI dialogs requested: confirm 'Sure?' ×1" in out, out
    assert report["score"] == {"replies": 3, "replies_served": 2, "tools": 2, "tools_called": 1, "percent": 60.0}


@pytest.mark.slow
def test_the_summary_and_the_json_name_the_unserved_reply_and_the_uncalled_tool(tmp_path: Path) -> None:
    proc, report = run_pytest(tmp_path, "-p", "no:xdist")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    check_report(proc, report)
    assert "fail-under" not in proc.stdout


@pytest.mark.slow
def test_fail_under_fails_a_green_run(tmp_path: Path) -> None:
    proc, report = run_pytest(tmp_path, "-p", "no:xdist", "--autocue-coverage-fail-under=80")
    assert "3 passed" in proc.stdout, proc.stdout
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "autocue coverage 60% is under --autocue-coverage-fail-under=80" in proc.stdout
    check_report(proc, report)
    proc, _ = run_pytest(tmp_path, "-p", "no:xdist", "--autocue-coverage-fail-under=60")
    assert proc.returncode == 0, proc.stdout


@pytest.mark.slow
def test_under_xdist_the_workers_parts_are_merged(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    proc, report = run_pytest(tmp_path, "-n", "2", "--autocue-coverage-fail-under=80")
    assert "3 passed" in proc.stdout and proc.returncode == 1, proc.stdout + proc.stderr
    check_report(proc, report)


# ---------------------------------------------------------------------------- the collector alone


def test_merge_unions_the_sessions_of_a_scenario_and_fills_in_every_timeline_kind() -> None:
    steps = [{"at": "a.yaml:3", "step": "one"}, {"at": "a.yaml:5", "step": "two"}]
    part_a = {"sessions": [{"session": "s1", "scenario": "a", "source": "a.yaml", "steps": steps, "served": [0],
                            "requests": 1, "declared_tools": ["x", "y"], "called_tools": ["x"], "profile": None}],
              "counts": {"runs": {"scenarios": 1}, "timeline": {"userInputs": 2}}}
    part_b = {"sessions": [{"session": "s2", "scenario": "a", "source": "a.yaml", "steps": steps, "served": [1],
                            "requests": 1, "declared_tools": ["y"], "called_tools": [], "profile": "codex"}],
              "counts": {"timeline": {"userInputs": 1}, "hooks_registered": {"ext.py\ttool_call": 1},
                         "hooks_fired": {}}}
    report = suite_coverage.merge([part_a, part_b], ["llmResponse", "userInputs", "screenshot"])
    assert report["scenarios"][0]["served"] == 2 and report["scenarios"][0]["unserved"] == []
    assert report["score"]["percent"] == 75.0  # 2/2 replies, 1/2 tools
    assert report["timeline"] == {"scenarios": 1, "kinds": {"llmResponse": 0, "userInputs": 3, "screenshot": 0}}
    assert report["hooks"] == [{"extension": "ext.py", "event": "tool_call", "fired": 0}]
    assert report["profiles"] == [{"profile": "codex", "where": "mock LLM session", "count": 1}]
    lines = suite_coverage.summary(report)
    assert "  tool_call of ext.py: NEVER FIRED" in lines
    assert suite_coverage.fails_under(report, 75) is None and suite_coverage.fails_under(report, 76) is not None


def test_nothing_played_scores_100() -> None:
    assert suite_coverage.merge([])["score"]["percent"] == 100.0


@pytest.fixture
def collector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Coverage on in this process for one test (whatever was on before is back afterwards)."""
    monkeypatch.setattr(suite_coverage, "COLLECTOR", None)
    monkeypatch.delenv(suite_coverage.ENV, raising=False)
    yield suite_coverage.enable(tmp_path / "parts")
    suite_coverage.disable()


def test_two_scenarios_of_one_file_and_a_script_in_memory_are_told_apart(collector: Any, tmp_path: Path) -> None:
    from autocue.script.model import Script, Turn
    from autocue.testing import MockLLM, say

    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "two.yaml").write_text("name: one\ntimeline:\n  - assistant: [[0, One.]]\n---\n"
                                       "name: two\ntimeline:\n  - assistant: [[0, Two.]]\n")
    for name in ("one", "two"):
        with MockLLM(tmp_path / "dir", api_key=name) as llm:
            c = llm.openai(max_retries=0, default_headers={"x-scenario-name": name})
            c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    with MockLLM(Script([Turn("hi", [say("Hello."), say("Never.")])], name="in-memory")) as llm:
        llm.openai(max_retries=0).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    report = suite_coverage.collect()
    keys = {s["key"]: (s["served"], s["total"]) for s in report["scenarios"]}
    assert len(keys) == 3, keys
    assert sorted(v for k, v in keys.items() if k.endswith(("(one)", "(two)"))) == [(1, 1), (1, 1)]
    assert [v for k, v in keys.items() if "two.yaml" not in k] == [(1, 2)]
    assert "timeline" not in report  # the runner played nothing
