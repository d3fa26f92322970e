"""``autocue import atif``: Harbor's trajectories become scenarios; a malformed one is one line naming where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from atif_judge import FIXTURES, validate

from autocue.cli.main import main
from autocue.scenario import LlmResponse, load_scenario_text
from autocue.script.model import ScriptedResponse, ScriptedToolCall
from autocue.traces import TraceError, import_atif

TRAJECTORIES = sorted(FIXTURES.glob("*.trajectory.json"))


@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name)
def test_harbors_own_trajectories_are_valid_for_the_judge(path: Path) -> None:
    assert validate(path).steps


def _calls(text: str) -> list[tuple[str, dict[str, object]]]:
    sc = load_scenario_text(text, "imported.yaml")
    return [(c.name, dict(c.arguments)) for t in sc.compile().turns for s in t.steps
            if isinstance(s, ScriptedResponse) for c in s.content if isinstance(c, ScriptedToolCall)]


def test_openhands_maps_its_editor_onto_autocues_write_and_finish_onto_the_last_reply() -> None:
    imported = import_atif(FIXTURES / "openhands-hello-world.trajectory.json")
    sc = load_scenario_text(imported.text, "imported.yaml")
    assert sc.initial_prompt == 'Create a file called hello.txt with "Hello, world!" as the content.\n'
    assert _calls(imported.text) == [("write", {"path": "hello.txt", "content": "Hello, world!"})]
    replies = [s for t in sc.compile().turns for s in t.steps if isinstance(s, ScriptedResponse)]
    assert [r.content[0].text for r in replies] == ["I edited the file /app/hello.txt.",  # type: ignore[union-attr]
                                                     "All done! What's next on the agenda?"]
    assert replies[0].usage is not None and (replies[0].usage.input, replies[0].usage.output) == (100, 50)
    assert "# steps[4].tool_calls[0]: str_replace_editor → write" in imported.text


def test_raw_keeps_every_call_as_the_trajectory_names_it() -> None:
    imported = import_atif(FIXTURES / "openhands-hello-world.trajectory.json", tools="raw")
    assert [name for name, _ in _calls(imported.text)] == ["str_replace_editor", "finish"]
    assert _calls(imported.text)[0][1]["path"] == "/app/hello.txt"


def test_terminus_keystrokes_become_bash_and_its_harness_only_steps_are_named_as_left_out() -> None:
    imported = import_atif(FIXTURES / "terminus2-hello-world-invalid-json.trajectory.json")
    assert _calls(imported.text) == [("bash", {"command": "printf 'Hello, world!\\n' > hello.txt"})]
    assert any(n.startswith("steps[1]: left out") for n in imported.notes)
    sc = load_scenario_text(imported.text, "imported.yaml")
    metas = [e.meta for e in sc.timeline if isinstance(e, LlmResponse)]
    assert metas[0] == {"usage": {"input": 785, "output": 50, "cacheRead": 0, "cacheWrite": 0},
                        "model": "openai/gpt-4o"}


def test_a_trajectory_that_ends_in_tool_calls_gets_a_closing_reply() -> None:
    imported = import_atif(FIXTURES / "terminus2-hello-world-timeout.trajectory.json")
    sc = load_scenario_text(imported.text, "imported.yaml")
    assert len(sc.responses()) == 4 and imported.tool_calls == 3
    assert "the trajectory ends with tool calls" in imported.text


def _broken(tmp_path: Path, change: object) -> Path:
    data = json.loads((FIXTURES / "openhands-hello-world.trajectory.json").read_text())
    assert callable(change)
    change(data)
    p = tmp_path / "broken.json"
    p.write_text(json.dumps(data))
    return p


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d["steps"][4]["tool_calls"][0].update(arguments="create"),
     "steps[4].tool_calls[0].arguments: expected an object, got a string"),
    (lambda d: d["steps"][4]["tool_calls"][0].pop("function_name"),
     "steps[4].tool_calls[0].function_name: expected a tool name, got None"),
    (lambda d: d["steps"][3].update(source="robot"), "steps[3].source: expected 'system', 'user' or 'agent'"),
    (lambda d: d["steps"][1].update(message=[{"type": "text", "text": 3}]),
     "steps[1].message[0].text: expected a string, got a number"),
    (lambda d: d.update(steps=[]), "steps: expected a non-empty list of steps, got a list"),
    (lambda d: d.update(schema_version="1.0"), "schema_version: expected an ATIF version"),
])
def test_a_malformed_trajectory_is_one_line_naming_file_json_path_and_what(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: object, where: str) -> None:
    p = _broken(tmp_path, change)
    assert main(["import", "atif", str(p), "-o", str(tmp_path / "out.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"autocue import: {p}: {where}"), err
    assert not (tmp_path / "out.yaml").exists()


def test_not_json_and_a_missing_file_are_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["import", "atif", str(bad)]) == 2
    assert main(["import", "atif", str(tmp_path / "absent.json")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"autocue import: {bad}: not JSON") and "No such file" in lines[1]
    with pytest.raises(TraceError, match="tools must be"):
        import_atif(FIXTURES / "openhands-hello-world.trajectory.json", tools="other")


def test_the_cli_writes_a_scenario_that_checks_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hello.yaml"
    assert main(["import", "atif", str(FIXTURES / "openhands-hello-world.trajectory.json"), "-o", str(out),
                 "--name", "hello"]) == 0
    assert "wrote" in capsys.readouterr().err
    assert main(["scenario", "check", "--strict", str(out)]) == 0
    assert load_scenario_text(out.read_text(), str(out)).name == "hello"


def test_claude_codes_and_codexs_tools_map_onto_autocues(tmp_path: Path) -> None:
    steps: list[dict[str, object]] = [{"step_id": 1, "source": "user", "message": "fix it"}]
    calls = [("Write", {"file_path": "/app/a.txt", "content": "x"}),
             ("Edit", {"file_path": "/app/a.txt", "old_string": "x", "new_string": "y"}),
             ("Read", {"file_path": "/app/a.txt"}), ("Bash", {"command": "ls"}),
             ("exec_command", {"cmd": "cat a.txt"})]
    for i, (name, args) in enumerate(calls):
        steps.append({"step_id": i + 2, "source": "agent", "message": "",
                      "tool_calls": [{"tool_call_id": f"t{i}", "function_name": name, "arguments": args}]})
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "Fixed."})
    trajectory = {"schema_version": "ATIF-v1.6", "agent": {"name": "claude-code", "version": "2"}, "steps": steps}
    validate(trajectory)
    p = tmp_path / "t.json"
    p.write_text(json.dumps(trajectory))
    assert _calls(import_atif(p).text) == [
        ("write", {"path": "a.txt", "content": "x"}), ("edit", {"path": "a.txt", "oldText": "x", "newText": "y"}),
        ("read", {"path": "a.txt"}), ("bash", {"command": "ls"}), ("bash", {"command": "cat a.txt"})]
