"""Every accepted form loads into the typed model and compiles onto the Script model exactly."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_paths import GOOD

from autocue.llm import TextContent, ThinkingContent
from autocue.scenario import (
    AdvanceMs,
    AgentEdits,
    AssertSpec,
    AssertStep,
    AssistantPart,
    Complete,
    ErrorStep,
    GitCommitCheck,
    JsonFileCheck,
    LlmResponse,
    Merge,
    Pos,
    RunnerEvent,
    Scenario,
    ScenarioError,
    Screenshot,
    ThinkPart,
    ToolUse,
    UserCommand,
    UserEdits,
    UserInputs,
    load_scenario,
    load_scenario_text,
    load_scenarios,
)
from autocue.script import ScriptedError, ScriptedResponse, ScriptedToolCall


def load(name: str) -> Scenario:
    return load_scenario(GOOD / name)


def shape(r: Any) -> list[Any]:
    """A compact view of a compiled reply: ("think"|"say", text) and ("call", name, args, id)."""
    assert isinstance(r, ScriptedResponse)
    out: list[Any] = []
    for b in r.content:
        if isinstance(b, ThinkingContent):
            out.append(("think", b.thinking))
        elif isinstance(b, TextContent):
            out.append(("say", b.text))
        else:
            assert isinstance(b, ScriptedToolCall)
            out.append(("call", b.name, b.arguments, b.id))
    return out


def test_llm_response_group_with_pairs_objects_rich_blocks_and_tools() -> None:
    sc = load("groups.yaml")
    assert sc.warnings == []
    first = sc.timeline[0]
    assert isinstance(first, LlmResponse) and first.grouped and first.meta == {"note": "kept"}
    assert first.pos == Pos(str(GOOD / "groups.yaml"), 4, 5)
    think, text, grep, run = first.parts
    assert isinstance(think, ThinkPart) and [(s.ms, s.text) for s in think.steps] == [
        (500, "pair think"), (300, "object think")]
    assert isinstance(text, AssistantPart)
    assert [(s.ms, s.text) for s in text.steps] == [(200, "pair text"), (100, "object text"), (50, "rich text")]
    assert text.steps[2].block == {"type": "text", "text": "rich text"}
    assert isinstance(grep, ToolUse) and grep.tool_call_id == "g1" and grep.written_as == "agentToolUse"
    assert grep.args == {"pattern": "def", "path": ".", "glob": "*.py"}
    assert isinstance(run, ToolUse) and (run.tool_name, run.args, run.written_as) == ("runCmd", {"cmd": "ls"}, "runCmd")

    script = sc.compile()
    assert [t.prompt for t in script.turns] == ["start"]
    r1, r2 = script.turns[0].steps
    assert shape(r1) == [
        ("think", "pair think"), ("think", "object think"),
        ("say", "pair text"), ("say", "object text"), ("say", "rich text"),
        ("call", "grep", {"pattern": "def", "path": ".", "glob": "*.py"}, "g1"),
        ("call", "runCmd", {"cmd": "ls"}, None),
    ]
    assert isinstance(r1, ScriptedResponse)
    assert r1.chunk_delays_ms == [500, 300, 200, 100, 50, 0, 0]
    assert r1.source == f"{GOOD / 'groups.yaml'}:4"
    assert r1.effective_stop_reason() == "toolUse"
    assert shape(r2) == [("say", "done")]
    assert isinstance(r2, ScriptedResponse) and r2.effective_stop_reason() == "stop"


def test_legacy_top_level_events_coalesce_into_replies() -> None:
    sc = load("legacy.yaml")
    assert sc.warnings == []
    kinds = [(type(e).__name__, e.grouped) for e in sc.timeline if isinstance(e, LlmResponse)]
    assert kinds == [("LlmResponse", False)] * 7
    tool = sc.timeline[2]
    assert isinstance(tool, LlmResponse)
    call = tool.parts[0]
    assert isinstance(call, ToolUse)
    # run_command {command} is normalized to the canonical runCmd {cmd}
    assert (call.tool_name, call.args) == ("runCmd", {"cmd": "echo hi", "cwd": "."})
    assert [(p.ms, p.text) for p in call.progress] == [(300, "Running..."), (100, "done")]
    assert (call.result, call.status) == ("hi", "ok")
    edits = sc.timeline[3]
    assert isinstance(edits, LlmResponse) and isinstance(edits.parts[0], AgentEdits)
    assert (edits.parts[0].path, edits.parts[0].lines_added, edits.parts[0].lines_removed) == ("hello.py", 1, 0)

    script = sc.compile()
    assert len(script.turns) == 1 and script.turns[0].prompt is None
    steps = script.turns[0].steps
    assert [shape(s) for s in steps] == [
        [("think", "legacy think"), ("say", "legacy text"), ("call", "runCmd", {"cmd": "echo hi", "cwd": "."}, None)],
        [("call", "readFile", {"path": "hello.py"}, None)],
        [("say", "after"), ("call", "writeFile", {"path": "out.txt", "content": "written"}, None)],
    ]
    assert [s.source for s in steps if isinstance(s, ScriptedResponse)] == [
        f"{GOOD / 'legacy.yaml'}:{n}" for n in (3, 22, 23)]


def test_type_tagged_events() -> None:
    sc = load("tagged.yaml")
    assert sc.warnings == []
    ev = sc.timeline
    assert isinstance(ev[0], UserInputs) and ev[0].target == "tui"
    assert [(i.ms, i.text, i.target) for i in ev[0].inputs] == [(100, "hello there", "tui")]
    assert isinstance(ev[4], AdvanceMs) and ev[4].ms == 50
    assert isinstance(ev[5], Screenshot) and ev[5].label == "after_pwd"
    assert isinstance(ev[8], RunnerEvent) and (ev[8].kind, ev[8].data) == ("assertVm", {"vm": {"running": True}})
    assert isinstance(ev[9], AssertStep) and ev[9].spec.fs_exists == ["a.txt"]
    assert isinstance(ev[10], Complete) and ev[10].value is True

    script = sc.compile()
    (turn,) = script.turns
    assert turn.prompt == "hello there"
    assert [shape(s) if isinstance(s, ScriptedResponse) and s.error is None else "error" for s in turn.steps] == [
        [("think", "tagged think"), ("say", "tagged text"), ("call", "runCmd", {"cmd": "pwd"}, None)],
        [("call", "readFile", {"path": "a.txt"}, None)],
        "error",
        [("say", "element tagged"), ("call", "writeFile", {"path": "b.txt", "content": "B"}, None)],
    ]
    err = turn.steps[2]
    assert isinstance(err, ScriptedResponse)
    assert err.error == ScriptedError("busy", "overloaded", 503, None,
                                      {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
    assert [(c.before_step, c.source) for c in turn.checks] == [(3, f"{GOOD / 'tagged.yaml'}:26")]
    assert isinstance(turn.checks[0].spec, AssertSpec)


def test_every_tool_named_event_keeps_scenario_names_and_args() -> None:
    sc = load("tools.yaml")
    assert sc.warnings == []
    calls = [(s.content[0].name, s.content[0].arguments) for s in sc.compile().all_steps()
             if isinstance(s, ScriptedResponse) and isinstance(s.content[0], ScriptedToolCall)]
    assert [c[0] for c in calls] == [
        "runCmd", "grep", "readFile", "listDir", "find", "sed", "editFile", "writeFile", "task", "webFetch",
        "webSearch", "todoWrite", "notebookEdit", "exitPlanMode", "bashOutput", "killShell", "slashCommand",
    ]
    assert calls[0][1] == {"cmd": "npm test", "cwd": "web", "timeout": 30000, "description": "tests",
                           "run_in_background": False}
    assert calls[1][1] == {"pattern": "TODO", "path": "src", "glob": "*.py", "output_mode": "content", "-i": True,
                           "-C": 2, "head_limit": 5}
    assert calls[11][1] == {"todos": [{"content": "write tests", "status": "pending", "activeForm": "writing tests"}]}
    # consecutive top-level tool events are sequential replies, one call each
    assert sc.compile().step_count == 17


def test_user_and_control_events_and_top_level_blocks() -> None:
    sc = load("user_control.yaml")
    assert sc.warnings == []
    assert sc.tags == ["cli", "tui"] and sc.terminal_ref == "configs/terminal/default-100x30.json"
    assert (sc.compat.allow_inline_terminal, sc.compat.allow_type_steps) == (True, True)
    assert sc.repo is not None and (sc.repo.init, sc.repo.branch, sc.repo.dir) == (True, "feature/test", "./repo")
    assert [(f.path, f.contents) for f in sc.repo.files] == [("README.md", "hello"), ("bin.dat", b"hi")]
    assert sc.command is not None and sc.command.cmd == "task"
    assert sc.command.flags == ["--agent=mock", "--working-copy", "in-place"]
    assert sc.command.env == {"AH_LOG": "debug", "LEVEL": "3"}
    assert (sc.server.mode, sc.server.llm_api_style, sc.server.coalesce_thinking_with_tool_use) == (
        "mock", "anthropic", False)
    assert sc.server.tools_profile == "pi" and sc.server.extra == {"seed": {"tasks": []}}
    assert sc.expect is not None and sc.expect.exit_code == 0
    assert [(a.type, a.pattern) for a in sc.expect.artifacts] == [("taskFile", ".agents/tasks/*")]

    kinds = [type(e).__name__ for e in sc.timeline]
    assert kinds == [
        "UserInputs", "LlmResponse", "Screenshot", "AdvanceMs", "AdvanceMs", "UserEdits", "UserCommand",
        "AssertStep", "UserInputs", "LlmResponse", "Complete", "Merge", "RunnerEvent",
    ]
    ev = sc.timeline
    assert isinstance(ev[3], AdvanceMs) and isinstance(ev[4], AdvanceMs) and (ev[3].ms, ev[4].ms) == (50, 25)
    assert isinstance(ev[5], UserEdits) and ev[5].patch == "patches/fix.patch"
    assert isinstance(ev[6], UserCommand) and (ev[6].cmd, ev[6].cwd) == ("git status", "repo")
    a = ev[7]
    assert isinstance(a, AssertStep)
    assert a.spec.fs_exists == ["README.md"] and a.spec.fs_not_exists == ["missing.txt"]
    assert a.spec.text_contains == ["ok"]
    assert a.spec.json_file == [JsonFileCheck("data.json", "/a/0", 1)]
    assert a.spec.git_commit == [GitCommitCheck("initial")]
    ui = ev[8]
    assert isinstance(ui, UserInputs) and ui.target == "tui"  # from userActions, target at step level
    assert [(i.ms, i.text, i.rich) for i in ui.inputs] == [
        (200, "second prompt", None), (300, "more", [{"type": "text", "text": "more"}])]
    run = ev[9]
    assert isinstance(run, LlmResponse)
    tu = run.parts[0]
    assert isinstance(tu, ToolUse) and tu.tool_execution is not None
    assert [(e.type, e.time_ms, e.content, e.exit_code) for e in tu.tool_execution.events] == [
        ("stdout", 100, "> npm test", None), ("completion", 950, None, 0)]
    assert isinstance(ev[11], Merge) and ev[11].value is True
    assert isinstance(ev[12], RunnerEvent) and (ev[12].kind, ev[12].data) == ("status", "running")

    script = sc.compile()
    assert [(t.prompt, len(t.steps), [c.before_step for c in t.checks]) for t in script.turns] == [
        ("first prompt", 1, [1]),
        ("second prompt\nmore", 1, []),
    ]


def test_error_steps_with_status_body_and_retry_after() -> None:
    sc = load("errors.yaml")
    errs = [e.parts[0] for e in sc.timeline if isinstance(e, LlmResponse) and isinstance(e.parts[0], ErrorStep)]
    assert [(e.status, e.error_type, e.message, e.retry_after) for e in errs] == [
        (429, "rate_limit_error", "slow down", 2.0),
        (500, None, "from body", None),
        (529, "overloaded_error", "overloaded", None),  # status from the error type
        (400, "invalid_request_error", "prompt is too long: 200000 tokens", None),
    ]
    steps = sc.compile().turns[0].steps
    got = [s.error for s in steps if isinstance(s, ScriptedResponse)]
    assert got == [
        ScriptedError("slow down", "rate_limit", 429, 2.0,
                      {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        ScriptedError("from body", "error", 500, None, {"error": {"type": "api_error", "message": "from body"}}),
        ScriptedError("overloaded", "overloaded", 529, None,
                      {"type": "error", "error": {"type": "overloaded_error", "message": "overloaded"}}),
        ScriptedError("prompt is too long: 200000 tokens", "context_overflow", 400, None,
                      {"type": "error", "error": {"type": "invalid_request_error",
                                                  "message": "prompt is too long: 200000 tokens",
                                                  "details": {"limit": 100000}}}),
        None,
    ]
    first = steps[0]
    assert isinstance(first, ScriptedResponse) and first.effective_stop_reason() == "error"
    assert first.error is not None and first.error.error_text() == "429 rate_limit_error: slow down"


def test_unknown_keys_and_events_warn_with_positions_and_never_crash() -> None:
    sc = load("warnings.yaml")
    f = str(GOOD / "warnings.yaml")
    assert [str(w) for w in sc.warnings] == [
        f"{f}:2:1: owner: unknown key 'owner' in the scenario is ignored",
        f"{f}:14:1: rules: conditional `rules` blocks are not supported by autocue; the block is ignored "
        "(write the resolved values directly)",
        f"{f}:7:9: timeline[0].llmResponse[0].color: unknown key 'color' next to assistant is ignored",
        f"{f}:8:5: timeline[1].fancyEvent: unknown timeline event 'fancyEvent' is ignored (known events: "
        "llmResponse, userInputs, assert, advanceMs, screenshot, runCmd, ...)",
        f"{f}:11:7: timeline[2].assert.vm: assertion 'vm' is not checked by autocue (known: fs, text, json, git, acp); "
        "it is kept in extra",
        f"{f}:12:11: timeline[3].type: unknown event type 'teleport' is ignored",
    ]
    assert [(w.pos.line, w.path) for w in sc.warnings][:1] == [(2, "owner")]
    # ignored input is still visible in the model
    assert [e.kind for e in sc.timeline if isinstance(e, RunnerEvent)] == ["fancyEvent", "teleport"]
    spec = next(e for e in sc.timeline if isinstance(e, AssertStep)).spec
    assert spec.extra == {"vm": {"running": True}}


def test_multi_document_file() -> None:
    scs = load_scenarios(GOOD / "multi.yaml")
    assert [s.name for s in scs] == ["first", "second"]
    assert [s.pos.line for s in scs] == [1, 6]
    with pytest.raises(ScenarioError, match="expected one scenario, found 2 YAML documents"):
        load_scenario(GOOD / "multi.yaml")


def test_load_scenarios_from_a_directory_is_sorted() -> None:
    names = [s.name for s in load_scenarios(GOOD)]
    assert names == ["errors", "groups", "legacy", "first", "second", "tagged", "tools", "user_control", "warnings"]


def test_initial_prompt_is_replaced_by_a_leading_user_input_and_later_inputs_split_turns() -> None:
    sc = load_scenario_text(
        "name: t\ninitialPrompt: fallback\ntimeline:\n"
        "  - userInputs: [[0, one]]\n"
        "  - assistant: [[0, a]]\n"
        "  - assert: {fs: {exists: [x]}}\n"
        "  - userInputs: [[0, two], [5, three]]\n"
        "  - assistant: [[0, b]]\n"
    )
    script = sc.compile()
    assert [(t.prompt, [shape(s) for s in t.steps], [c.before_step for c in t.checks]) for t in script.turns] == [
        ("one", [[("say", "a")]], [1]),
        ("two\nthree", [[("say", "b")]], []),
    ]
    assert script.name == "t" and script.source == "<string>:1"


def test_text_after_a_tool_call_starts_a_new_reply_and_grouped_replies_do_not_absorb_legacy_text() -> None:
    sc = load_scenario_text(
        "name: t\ntimeline:\n"
        "  - llmResponse:\n      - assistant: [[0, g]]\n"
        "  - assistant: [[0, legacy]]\n"      # a group is closed for text
        "  - runCmd: {cmd: ls}\n"              # joins the open legacy reply
        "  - readFile: {path: a}\n"            # a reply with a call already: new reply
        "  - think: [[0, t]]\n"                # after a call: new reply
    )
    steps = sc.compile().turns[0].steps
    assert [shape(s) for s in steps] == [
        [("say", "g")],
        [("say", "legacy"), ("call", "runCmd", {"cmd": "ls"}, None)],
        [("call", "readFile", {"path": "a"}, None)],
        [("think", "t")],
    ]


def test_compile_returns_a_fresh_script_each_time() -> None:
    sc = load("groups.yaml")
    a, b = sc.compile(), sc.compile()
    assert a is not b and a.turns[0].steps[0] is not b.turns[0].steps[0]
    first = a.turns[0].steps[0]
    assert isinstance(first, ScriptedResponse)
    call = first.content[-1]
    assert isinstance(call, ScriptedToolCall) and isinstance(call.arguments, dict)
    call.arguments["cmd"] = "changed"
    second = b.turns[0].steps[0]
    assert isinstance(second, ScriptedResponse)
    last = second.content[-1]
    assert isinstance(last, ScriptedToolCall) and last.arguments == {"cmd": "ls"}


def test_bare_word_events_and_null_tool_args() -> None:
    sc = load_scenario_text("name: t\ntimeline:\n  - complete\n  - merge\n  - sessionStart\n  - listDir:\n")
    assert [type(e).__name__ for e in sc.timeline] == ["Complete", "Merge", "RunnerEvent", "LlmResponse"]
    tu = sc.timeline[3]
    assert isinstance(tu, LlmResponse) and isinstance(tu.parts[0], ToolUse) and tu.parts[0].args == {}


def test_agent_actions_user_actions_and_legacy_top_level_keys() -> None:
    sc = load_scenario_text(
        "name: t\nevents:\n  - agentActions:\n      - writeFile: {path: a, content: b}\n"
        "assertions:\n  - fs: {exists: [a]}\n"
    )
    assert [str(w).split(": ", 1)[1] for w in sc.warnings] == [
        "events: legacy key `events` is read as `timeline`; rename it",
        "assertions: legacy key `assertions` is read as `assert` steps at the end of the timeline; move them into "
        "the timeline",
    ]
    script = sc.compile()
    assert [shape(s) for s in script.turns[0].steps] == [[("call", "writeFile", {"path": "a", "content": "b"}, None)]]
    assert [c.before_step for c in script.turns[0].checks] == [1]


def test_an_error_element_inside_a_group_warns_that_siblings_are_not_sent() -> None:
    sc = load_scenario_text(
        "name: t\ntimeline:\n  - llmResponse:\n      - assistant: [[0, lost]]\n      - error: {statusCode: 500}\n"
    )
    assert [str(w) for w in sc.warnings] == [
        "<string>:5:16: timeline[0].llmResponse: an llmResponse with an `error` element plays as that failed call; "
        "its other elements are not sent (put them in the next llmResponse)"
    ]
    (step,) = sc.compile().turns[0].steps
    assert isinstance(step, ScriptedResponse) and step.error is not None and step.error.status == 500
