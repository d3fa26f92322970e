"""Tool profiles map scenario calls onto each agent's exact tool and argument names."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_paths import GOOD

from autocue.llm import Context, TextContent
from autocue.scenario import (
    PROFILE_NAMES,
    ToolMapping,
    ToolProfile,
    apply_profile,
    detect_profile,
    get_profile,
    load_scenario,
)
from autocue.script import Script, ScriptedResponse, ScriptedToolCall, Turn

RUN = {"cmd": "npm test", "cwd": "web", "timeout": 30000, "description": "tests", "run_in_background": False}
READ = {"path": "a.py", "encoding": "utf-8", "offset": 10, "limit": 20}
WRITE = {"path": "src/b.py", "content": "print('hi')\n"}
EDIT = {"path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True}
GREP = {"pattern": "TODO", "path": "src", "glob": "*.py", "-i": True, "-C": 2, "head_limit": 5}


@pytest.mark.parametrize(
    ("profile", "tool", "args", "expected"),
    [
        # autocue / pi: read{path,offset,limit} write{path,content} edit{path,oldText,newText} bash{command,timeout}
        ("autocue", "runCmd", RUN, ("bash", {"command": "cd web && npm test", "timeout": 30})),
        ("autocue", "runCmd", {"cmd": "ls", "cwd": "."}, ("bash", {"command": "ls"})),
        ("pi", "readFile", READ, ("read", {"path": "a.py", "offset": 10, "limit": 20})),
        ("pi", "writeFile", WRITE, ("write", WRITE)),
        ("autocue", "editFile", EDIT, ("edit", {"path": "a.py", "oldText": "x", "newText": "y"})),
        ("autocue", "grep", GREP, ("grep", {"pattern": "TODO", "path": "src", "glob": "*.py", "ignoreCase": True,
                                            "context": 2, "limit": 5})),
        ("autocue", "find", {"path": "src", "name": "*.md", "type": "file"}, ("find", {"pattern": "*.md",
                                                                                      "path": "src"})),
        ("autocue", "listDir", {"path": "src", "recursive": True}, ("ls", {"path": "src"})),
        ("pi", "sed", {"expression": "s/a/b/", "path": "a.py"}, ("bash", {"command": "sed -i -e s/a/b/ a.py"})),
        # Claude Code 2.1
        ("claude-code", "runCmd", RUN, ("Bash", {"command": "cd web && npm test", "timeout": 30000,
                                                 "description": "tests", "run_in_background": False})),
        ("claude-code", "readFile", READ, ("Read", {"file_path": "a.py", "offset": 10, "limit": 20})),
        ("claude-code", "writeFile", WRITE, ("Write", {"file_path": "src/b.py", "content": "print('hi')\n"})),
        ("claude-code", "editFile", EDIT, ("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y",
                                                    "replace_all": True})),
        ("claude-code", "grep", {"pattern": "a b", "path": "src"}, ("Bash", {"command": "grep -rn -- 'a b' src"})),
        ("claude-code", "task", {"description": "d", "prompt": "p", "subagent_type": "general"},
         ("Agent", {"description": "d", "prompt": "p", "subagent_type": "general"})),
        ("claude-code", "slashCommand", {"command": "/review now"}, ("Skill", {"skill": "review", "args": "now"})),
        ("claude-code", "bashOutput", {"bash_id": "b1", "filter": "x"}, ("TaskOutput", {"task_id": "b1"})),
        ("claude-code", "webSearch", {"query": "q"}, ("WebSearch", {"query": "q"})),
        ("claude", "webFetch", {"url": "u", "prompt": "p"}, ("WebFetch", {"url": "u", "prompt": "p"})),
        # Claude Code 2.0 (harbor's profile)
        ("claude-code-2.0", "grep", GREP, ("Grep", GREP)),
        ("claude-code-2.0", "find", {"path": "src", "name": "*.md"}, ("Glob", {"pattern": "**/*.md", "path": "src"})),
        ("claude-code-2.0", "todoWrite", {"todos": []}, ("TodoWrite", {"todos": []})),
        # Codex: exec_command {cmd, workdir}
        ("codex", "runCmd", RUN, ("exec_command", {"cmd": "npm test", "workdir": "web"})),
        ("codex", "readFile", {"path": "a b.py"}, ("exec_command", {"cmd": "cat -- 'a b.py'"})),
        ("codex", "readFile", READ, ("exec_command", {"cmd": "sed -n '10,29p' -- a.py"})),
        ("codex", "writeFile", WRITE, ("exec_command", {"cmd": "mkdir -p src && printf '%s' 'print('\"'\"'hi'\"'\"')\n'"
                                                               " > src/b.py"})),
        ("codex", "listDir", {"path": "src"}, ("exec_command", {"cmd": "ls -la src"})),
        # opencode: filePath / oldString / newString
        ("opencode", "runCmd", RUN, ("bash", {"command": "npm test", "description": "tests", "workdir": "web",
                                              "timeout": 30000})),
        ("opencode", "readFile", READ, ("read", {"filePath": "a.py", "offset": 10, "limit": 20})),
        ("opencode", "editFile", EDIT, ("edit", {"filePath": "a.py", "oldString": "x", "newString": "y",
                                                 "replaceAll": True})),
        ("opencode", "grep", GREP, ("grep", {"pattern": "TODO", "path": "src", "include": "*.py"})),
        ("opencode", "webFetch", {"url": "u", "prompt": "p"}, ("webfetch", {"url": "u", "format": "markdown"})),
        # Gemini CLI
        ("gemini-cli", "runCmd", RUN, ("run_shell_command", {"command": "npm test", "description": "tests",
                                                             "dir_path": "web", "is_background": False})),
        ("gemini-cli", "readFile", READ, ("read_file", {"file_path": "a.py", "start_line": 10, "end_line": 29})),
        ("gemini-cli", "writeFile", WRITE, ("write_file", {"file_path": "src/b.py", "content": "print('hi')\n"})),
        ("gemini-cli", "editFile", EDIT, ("replace", {"file_path": "a.py", "instruction": "Replace text in a.py",
                                                      "old_string": "x", "new_string": "y", "allow_multiple": True})),
        ("gemini-cli", "grep", GREP, ("grep_search", {"pattern": "TODO", "dir_path": "src",
                                                      "include_pattern": "*.py"})),
        ("gemini-cli", "listDir", {}, ("list_directory", {"dir_path": "."})),
        ("gemini", "webSearch", {"query": "q", "allowed_domains": ["x"]}, ("google_web_search", {"query": "q"})),
        ("gemini-cli", "todoWrite", {"todos": [{"content": "t", "status": "pending", "activeForm": "a"}]},
         ("write_todos", {"todos": [{"description": "t", "status": "pending"}]})),
    ],
)
def test_map_call(profile: str, tool: str, args: dict[str, Any], expected: tuple[str, dict[str, Any]]) -> None:
    assert get_profile(profile).map_call(tool, args) == expected


@pytest.mark.parametrize("name", PROFILE_NAMES)
def test_unknown_tools_pass_through_unchanged(name: str) -> None:
    p = get_profile(name)
    assert p.map_call("mcp__db__query", {"sql": "select 1"}) == ("mcp__db__query", {"sql": "select 1"})
    assert p.map_call("notebookEditX", {}) == ("notebookEditX", {})


def test_scenario_aliases_are_understood_by_profiles() -> None:
    assert get_profile("autocue").map_call("run_cmd", {"cmd": "ls"}) == ("bash", {"command": "ls"})


def test_codex_edit_and_write_commands_really_work(tmp_path: Any) -> None:
    import subprocess

    p = get_profile("codex")
    _, w = p.map_call("writeFile", {"path": "d/x.txt", "content": "it's a \"test\"\nline2"})
    subprocess.run(w["cmd"], shell=True, cwd=tmp_path, check=True)
    assert (tmp_path / "d" / "x.txt").read_text() == "it's a \"test\"\nline2"
    _, e = p.map_call("editFile", {"path": "d/x.txt", "old_string": "line2", "new_string": "LINE 2 $HOME"})
    subprocess.run(e["cmd"], shell=True, cwd=tmp_path, check=True)
    assert (tmp_path / "d" / "x.txt").read_text() == "it's a \"test\"\nLINE 2 $HOME"
    _, r = p.map_call("readFile", {"path": "d/x.txt", "offset": 2, "limit": 1})
    out = subprocess.run(r["cmd"], shell=True, cwd=tmp_path, check=True, capture_output=True, text=True)
    assert out.stdout == "LINE 2 $HOME"
    _, bad = p.map_call("editFile", {"path": "d/x.txt", "old_string": "absent", "new_string": "y"})
    failed = subprocess.run(bad["cmd"], shell=True, cwd=tmp_path, capture_output=True, text=True)
    assert failed.returncode != 0 and "old_string not found" in failed.stderr


def test_get_profile_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown tool profile 'cursor'; known profiles: claude-code, "
                                         r"claude-code-2\.0, codex, opencode, pi, gemini-cli, autocue$"):
        get_profile("cursor")


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        (["read", "bash", "edit", "write"], "pi"),
        (["read", "write", "edit", "bash", "grep", "find", "ls"], "autocue"),
        (["Agent", "Bash", "Edit", "Read", "WebFetch", "WebSearch", "Write", "TaskCreate"], "claude-code"),
        (["Bash", "Grep", "Read", "Glob", "Edit", "Write", "Task", "TodoWrite"], "claude-code-2.0"),
        (["exec_command", "write_stdin", "request_user_input", "view_image"], "codex"),
        (["bash", "edit", "glob", "grep", "read", "skill", "task", "todowrite", "webfetch", "write"], "opencode"),
        (["update_topic", "list_directory", "read_file", "grep_search", "glob", "google_web_search"], "gemini-cli"),
        (["run_shell_command"], "gemini-cli"),
        (["calculator"], None),
        ([], None),
    ],
)
def test_detect_profile(declared: list[str], expected: str | None) -> None:
    p = detect_profile(declared)
    assert (p.name if p else None) == expected


def test_apply_profile_maps_every_call_and_leaves_the_input_alone() -> None:
    script = load_scenario(GOOD / "groups.yaml").compile()
    mapped = apply_profile(script, get_profile("autocue"))
    first = mapped.turns[0].steps[0]
    assert isinstance(first, ScriptedResponse)
    assert [(b.name, b.arguments, b.id) for b in first.tool_calls] == [
        ("grep", {"pattern": "def", "path": ".", "glob": "*.py"}, "g1"), ("bash", {"command": "ls"}, None)]
    assert first.chunk_delays_ms == [500, 300, 200, 100, 50, 0, 0] and first.source is not None
    original = script.turns[0].steps[0]
    assert isinstance(original, ScriptedResponse)
    assert [b.name for b in original.tool_calls] == ["grep", "runCmd"]
    # replies without calls are shared, not copied
    assert mapped.turns[0].steps[1] is script.turns[0].steps[1]
    assert (mapped.name, mapped.source, mapped.turns[0].prompt) == (script.name, script.source, "start")
    assert apply_profile(script, "claude-code").turns[0].steps[0].tool_calls[1].arguments == {  # type: ignore[union-attr]
        "command": "ls"}


async def test_apply_profile_maps_late_bound_args_and_factories() -> None:
    counter = {"n": 0}

    def late() -> dict[str, Any]:
        counter["n"] += 1
        return {"path": f"f{counter['n']}.txt", "content": "x"}

    async def factory(ctx: Context) -> ScriptedResponse:
        return ScriptedResponse([ScriptedToolCall("readFile", {"path": "z"})])

    script = Script([Turn("go", [ScriptedResponse([ScriptedToolCall("writeFile", late)]), factory])])
    mapped = apply_profile(script, "opencode")
    step0 = mapped.turns[0].steps[0]
    assert isinstance(step0, ScriptedResponse)
    call = step0.tool_calls[0]
    assert call.name == "write" and counter["n"] == 0  # still late-bound
    assert call.resolve() == {"filePath": "f1.txt", "content": "x"}
    step1 = mapped.turns[0].steps[1]
    assert not isinstance(step1, ScriptedResponse)
    out = await step1(Context(None, []))  # type: ignore[misc]
    assert isinstance(out, ScriptedResponse) and out.tool_calls[0].name == "read"
    assert out.tool_calls[0].arguments == {"filePath": "z"}


def test_custom_profile() -> None:
    p = ToolProfile("mine", {"runCmd": ToolMapping("shell", {"cmd": "script", "cwd": None})})
    assert p.map_call("runCmd", {"cmd": "ls", "cwd": ".", "extra": 1}) == ("shell", {"script": "ls", "extra": 1})
    assert p.agent_tool_names == frozenset({"shell"}) and p.maps("run_cmd") and not p.maps("grep")
    script = Script([Turn("go", [ScriptedResponse([TextContent("hi")])])])
    assert apply_profile(script, p).turns[0].steps[0] is script.turns[0].steps[0]
