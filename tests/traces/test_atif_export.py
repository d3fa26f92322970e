"""``autocue export --atif``: a session file, a recording and a run, each judged by Harbor's models;
and the round trip: Harbor's trajectories imported, run by autocue's agent for real, exported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from atif_judge import FIXTURES, validate

from autocue.cli.main import main
from autocue.llm.providers.openai_completions import OpenAICompletionsProvider
from autocue.llm.types import Model
from autocue.mockllm import serve
from autocue.session.manager import SessionManager
from autocue.testing import call, create_test_session, say, think, when
from autocue.traces import TraceError, export_atif


def _export(path: Path, out: Path) -> dict[str, Any]:
    assert main(["export", "--atif", str(path), "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    validate(data)
    return data


def _agent_steps(t: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in t["steps"] if s["source"] == "agent"]


def test_a_session_file_of_the_harness(tmp_path: Path) -> None:
    with create_test_session() as t:
        t.run_sync(when("say hi in a file", [
            think("A file, then a look."),
            call("write", {"path": "hi.txt", "content": "hi"}),
            call("bash", {"command": "cat hi.txt"}),
            say("Wrote hi.txt.", usage={"input": 1200, "output": 40, "cache_read": 200}),
        ]))
        sm = SessionManager.create_at(tmp_path / "s.jsonl", str(t.cwd))
        sm.append_model_change("autocue", "scripted")
        for m in t.session.messages:
            sm.append_message(m)
    data = _export(tmp_path / "s.jsonl", tmp_path / "s.atif.json")
    assert data["session_id"] == sm.get_session_id()
    assert [s["source"] for s in data["steps"]] == ["user", "agent", "agent", "agent"]
    assert data["steps"][0]["message"] == "say hi in a file"
    first, second, last = _agent_steps(data)
    assert first["reasoning_content"] == "A file, then a look."
    assert first["tool_calls"][0]["function_name"] == "write"
    assert first["tool_calls"][0]["arguments"] == {"path": "hi.txt", "content": "hi"}
    call_id = first["tool_calls"][0]["tool_call_id"]
    assert first["observation"]["results"][0]["source_call_id"] == call_id
    assert second["observation"]["results"][0]["content"].strip() == "hi"  # bash ran for real
    assert last["message"] == "Wrote hi.txt."
    assert last["metrics"] == {"prompt_tokens": 1400, "completion_tokens": 40, "cached_tokens": 200}
    assert all(s["timestamp"].endswith("Z") for s in data["steps"])
    assert data["final_metrics"]["total_steps"] == 4


def test_an_old_session_file_is_read_not_migrated_on_disk(tmp_path: Path) -> None:
    """Exporting reads the user's file: a v1 file is migrated in memory, never rewritten or backed up."""
    p = tmp_path / "v1.jsonl"
    old = (b'{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
           b'{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a",'
           b'"timestamp":1}}\n')
    p.write_bytes(old)
    data = _export(p, tmp_path / "v1.atif.json")
    assert [s["message"] for s in data["steps"]] == ["a"]
    assert p.read_bytes() == old
    assert sorted(f.name for f in tmp_path.iterdir()) == ["v1.atif.json", "v1.jsonl"]


def test_a_recording_of_the_in_process_recorder(tmp_path: Path) -> None:
    upstream_file = tmp_path / "upstream.yaml"
    upstream_file.write_text("""\
name: upstream
initialPrompt: list the files
timeline:
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: call_1, args: {command: ls}}
  - llmResponse:
      - assistant: [[0, "Two files."]]
""")
    rec = tmp_path / "ls.yaml"
    with serve(upstream_file) as upstream:
        model = Model(id="gpt-5", api="openai-completions", provider="openai", base_url=upstream.openai_base_url)
        provider = OpenAICompletionsProvider(api_key_resolver=lambda _: "sk-example-key-0123456789abcdef")
        with create_test_session(record=str(rec), provider=provider, model=model,
                                 mock_tools={"bash": "a.txt b.txt"}) as t:
            t.run_sync(when("list the files", []))
    assert rec.read_text().startswith("# recorded by autocue record")
    data = _export(rec, tmp_path / "ls.atif.json")
    assert [s["source"] for s in data["steps"]] == ["user", "agent", "agent"]
    first, last = _agent_steps(data)
    assert first["tool_calls"] == [{"tool_call_id": "call_1", "function_name": "bash", "arguments": {"command": "ls"}}]
    assert "observation" not in first  # a recording holds no tool results
    assert last["message"] == "Two files." and data["agent"]["model_name"]
    assert "metrics" in last


def test_inputs_it_cannot_read_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.txt").write_text("hi")
    assert main(["export", "--atif", str(tmp_path / "x.txt")]) == 2
    assert main(["export", "--atif", str(tmp_path)]) == 2
    assert main(["export", "--atif", str(tmp_path / "none.jsonl")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert "not a session file (.jsonl), a scenario file (.yaml) or a run folder" in lines[0]
    assert "no requests.json in this folder" in lines[1] and "no such file" in lines[2]
    with pytest.raises(TraceError):
        export_atif(tmp_path / "none.yaml")


# ---------------------------------------------------------------------------- the round trip
def _run(scenarios: list[Path], out: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                                        os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "autocue", "run", *map(str, scenarios), "--agent", "autocue",
                        "--out", str(out), "--json", "--timeout", "60"],
                       capture_output=True, text=True, env=env, timeout=110, cwd=out.parent)
    report = json.loads(r.stdout)
    assert r.returncode == 0, (r.stderr, report)
    return list(report["scenarios"])


def _calls(t: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["function_name"], c["arguments"]) for s in _agent_steps(t) for c in s.get("tool_calls") or []]


def _comparable(t: dict[str, Any]) -> list[dict[str, Any]]:
    """The user and agent steps without ids and times (the system prompt names the run's workspace)."""
    out = []
    for s in t["steps"]:
        if s["source"] == "system":
            continue
        s = {k: v for k, v in s.items() if k not in ("step_id", "timestamp")}
        s["tool_calls"] = [{k: v for k, v in c.items() if k != "tool_call_id"} for c in s.get("tool_calls") or []]
        if "observation" in s:
            s["observation"] = [r.get("content") for r in s["observation"]["results"]]
        out.append(s)
    return out


@pytest.mark.slow
def test_round_trip_harbors_trajectories_import_run_export(tmp_path: Path) -> None:
    names = ["openhands-hello-world", "terminus2-hello-world-invalid-json"]
    originals = {n: json.loads((FIXTURES / f"{n}.trajectory.json").read_text()) for n in names}
    scenarios = []
    for n in names:
        p = tmp_path / f"{n}.yaml"
        assert main(["import", "atif", str(FIXTURES / f"{n}.trajectory.json"), "-o", str(p), "--name", n]) == 0
        scenarios.append(p)
    results = {r["name"]: r for r in _run(scenarios, tmp_path / "runs")}
    exported = {n: _export(Path(results[n]["out_dir"]), tmp_path / f"{n}.atif.json") for n in names}

    # OpenHands: the editor's create ran as autocue's write, for real; both agent steps kept their text
    oh, oh_orig = exported["openhands-hello-world"], originals["openhands-hello-world"]
    assert [s["message"] for s in _agent_steps(oh)] == [s["message"] for s in _agent_steps(oh_orig)]
    assert _calls(oh) == [("write", {"path": "hello.txt", "content": "Hello, world!"})]
    assert oh_orig["steps"][4]["tool_calls"][0]["arguments"]["file_text"] == "Hello, world!"
    first = _agent_steps(oh)[0]
    assert first["observation"]["results"] == [{"source_call_id": "call_fake_1",
                                                "content": "Successfully wrote 13 bytes to hello.txt"}]
    assert [s["metrics"] for s in _agent_steps(oh)] == [
        {k: v for k, v in s["metrics"].items() if k != "cost_usd"} for s in _agent_steps(oh_orig)]
    user = [s["message"] for s in oh["steps"] if s["source"] == "user"]
    assert user == [s["message"] for s in oh_orig["steps"] if s["source"] == "user"]

    # terminus 2: its keystrokes ran as bash; the steps the harness answered (parse errors) are left out
    tm, tm_orig = exported["terminus2-hello-world-invalid-json"], originals["terminus2-hello-world-invalid-json"]
    kept = [tm_orig["steps"][2], tm_orig["steps"][4]]
    assert [(s["message"], s.get("reasoning_content")) for s in _agent_steps(tm)] == [
        (s["message"], s.get("reasoning_content")) for s in kept]
    assert _calls(tm) == [("bash", {"command": kept[0]["tool_calls"][0]["arguments"]["keystrokes"].rstrip("\n")})]

    # the fixed point: an exported run imported again and run again exports the same steps
    again = tmp_path / "again.yaml"
    assert main(["import", "atif", str(tmp_path / "openhands-hello-world.atif.json"), "-o", str(again),
                 "--name", "again"]) == 0
    (rerun,) = _run([again], tmp_path / "runs2")
    second = _export(Path(rerun["out_dir"]), tmp_path / "again.atif.json")
    assert _comparable(second) == _comparable(oh)


HELLO = """\
name: hello
initialPrompt: Create hello.txt
timeline:
  - llmResponse:
      - think: [[0, "A file, then a look."]]
      - assistant: [[0, "I will write it."]]
      - agentToolUse: {toolName: write, toolCallId: c1, args: {path: hello.txt, content: "Hello, world!"}}
    _meta: {usage: {input: 300, output: 20, cacheRead: 100, cacheWrite: 0}}
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: c2, args: {command: cat hello.txt}}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""


@pytest.mark.slow
@pytest.mark.parametrize(("style", "api"), [("openai", "chat"), ("responses", "responses"),
                                           ("anthropic", "anthropic"), ("gemini", "gemini")])
def test_a_run_over_each_api_exports_what_the_agent_sent_and_its_tools_returned(
        tmp_path: Path, style: str, api: str) -> None:
    sc = tmp_path / "hello.yaml"
    sc.write_text(HELLO.replace("timeline:", f"server: {{llmApiStyle: {style}}}\ntimeline:"))  # the agent's API
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2] / "src"),
                                                        os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-m", "autocue", "run", str(sc), "--agent", "autocue",
                        "--out", str(tmp_path / "runs"), "--json", "--timeout", "60"],
                       capture_output=True, text=True, env=env, timeout=110, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [saved] = (tmp_path / "runs").rglob("requests.json")
    rows = json.loads(saved.read_text())["sessions"][0]["requests"]
    assert [r["reply"] for r in rows] == [1, 2, 3] and {r["api"] for r in rows} == {api}
    assert ["body" in r for r in rows] == [False, False, True]  # the last answered request holds the history
    # the report of one scenario stands for its run folder
    data = _export(tmp_path / "runs" / "report.json", tmp_path / "hello.atif.json")
    assert [s["source"] for s in data["steps"]] == ["system", "user", "agent", "agent", "agent"]
    assert data["extra"]["source"]["api"] == api
    first, second, last = _agent_steps(data)
    assert first["message"] == "I will write it." and first["reasoning_content"] == "A file, then a look."
    assert first["metrics"] == {"prompt_tokens": 400, "completion_tokens": 20, "cached_tokens": 100}
    assert _calls(data) == [("write", {"path": "hello.txt", "content": "Hello, world!"}),
                            ("bash", {"command": "cat hello.txt"})]
    call_id = "call_1" if api == "gemini" else "c1"  # Gemini's history carries no call ids: numbered in order
    assert first["tool_calls"][0]["tool_call_id"] == call_id
    assert first["observation"]["results"] == [{"source_call_id": call_id,
                                                "content": "Successfully wrote 13 bytes to hello.txt"}]
    assert second["observation"]["results"][0]["content"].strip() == "Hello, world!"  # cat ran in the workspace
    assert last["message"] == "Done." and "observation" not in last
    assert first["timestamp"] <= second["timestamp"] <= last["timestamp"]


def test_a_scenario_with_turns_and_a_failed_call(tmp_path: Path) -> None:
    sc = tmp_path / "turns.yaml"
    sc.write_text("""\
name: turns
initialPrompt: list the files
timeline:
  - llmResponse:
      - error: {statusCode: 429, message: slow down}
  - llmResponse:
      - agentToolUse: {toolName: ls, toolCallId: call_ls, args: {path: .}}
    _meta: {model: gpt-5, usage: {input: 10, output: 2, cacheRead: 0, cacheWrite: 0}}
  - llmResponse:
      - assistant: [[0, "Two files."]]
  - userInputs: [[0, "now summarize"]]
  - llmResponse:
      - assistant: [[0, "Hello twice."]]
""")
    data = _export(sc, tmp_path / "turns.atif.json")
    assert [(s["source"], s["message"]) for s in data["steps"]] == [
        ("user", "list the files"), ("agent", ""), ("agent", ""), ("agent", "Two files."),
        ("user", "now summarize"), ("agent", "Hello twice.")]
    assert "429" in data["steps"][1]["extra"]["error"]
    assert data["agent"]["model_name"] == "gpt-5" and data["final_metrics"]["total_prompt_tokens"] == 10


def test_a_report_of_several_runs_asks_for_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"scenarios": [{"name": "a", "out_dir": str(tmp_path / "a")},
                                                {"name": "b", "out_dir": str(tmp_path / "b")}]}))
    assert main(["export", "--atif", str(report)]) == 2
    assert "the report holds 2 scenario runs: pass the run folder of one" in capsys.readouterr().err
