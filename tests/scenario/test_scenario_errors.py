"""Broken scenario files raise ScenarioError naming file:line:column, the path and what to do."""

from __future__ import annotations

import pytest
from scenario_paths import BROKEN

from autocue.scenario import ScenarioError, load_scenario, load_scenario_text

# file, line, column, path, message (start)
CASES = [
    ("think_string.yaml", 7, 16, "timeline[3].llmResponse[0].think",
     "expected a list of [ms, text] pairs or {relativeTime, content} objects, got a string: "
     "write `- [0, \"I forgot the list\"]` (one item per step)"),
    ("missing_name.yaml", 1, 1, "name", "missing 'name': every scenario needs a non-empty name"),
    ("empty_name.yaml", 1, 7, "name", "the scenario name must not be empty"),
    ("timeline_mapping.yaml", 3, 3, "timeline", "expected a list of timeline events, got a mapping"),
    ("pair_one_item.yaml", 5, 13, "timeline[0].llmResponse[0].assistant[0]",
     "a timed step is [ms, text] (2 items), got 1 item(s)"),
    ("negative_advance.yaml", 3, 16, "timeline[0].advanceMs", "expected milliseconds (an integer) >= 0, got -5"),
    ("tool_no_name.yaml", 4, 7, "timeline[0].agentToolUse.toolName",
     "missing 'toolName': the tool to call (runCmd, readFile, writeFile, ...)"),
    ("status_string.yaml", 4, 19, "timeline[0].error.statusCode", "expected an HTTP status code, got a string"),
    ("status_range.yaml", 4, 19, "timeline[0].error.statusCode", "an HTTP status code is 100..599, got 999"),
    ("two_events.yaml", 3, 5, "timeline[0]",
     "one event per list item: found think and assistant; put each in its own `- ` item"),
    ("bare_word.yaml", 3, 5, "timeline[0]", "`advanceMs` needs a value: write `- advanceMs: ...`"),
    ("runcmd_no_cmd.yaml", 4, 7, "timeline[0].runCmd", "runCmd needs 'cmd' (or command)"),
    ("writefile_no_content.yaml", 4, 7, "timeline[0].writeFile", "writeFile needs 'content' (or text, contents)"),
    ("user_inputs_pair.yaml", 4, 9, "timeline[0].userInputs[0]", "a user input is [ms, text] (2 items), got 1 item(s)"),
    ("assert_exists_int.yaml", 5, 17, "timeline[0].assert.fs.exists", "expected a list of paths, got an integer"),
    ("server_mode.yaml", 3, 9, "server.mode", "server.mode must be none, mock or real, got 'fake'"),
    ("tags_string.yaml", 2, 7, "tags", "expected a list of tags (strings), got a string"),
    ("exec_event_type.yaml", 8, 20, "timeline[0].agentToolUse.toolExecution.events[0].type",
     "toolExecution event type must be one of stdout, stderr, progress, completion, got 'stdin'"),
    ("tagged_bad_ms.yaml", 4, 9, "timeline[0].ms", "expected milliseconds, got a string"),
    ("syntax.yaml", 5, 3, "", "invalid YAML: while parsing a flow sequence expected ',' or ']', but got '-'."),
]


def test_every_broken_fixture_is_covered() -> None:
    assert sorted(c[0] for c in CASES) == sorted(p.name for p in BROKEN.glob("*.yaml"))


@pytest.mark.parametrize(("name", "line", "col", "path", "message"), CASES, ids=[c[0] for c in CASES])
def test_broken_file_reports_exact_position(name: str, line: int, col: int, path: str, message: str) -> None:
    f = BROKEN / name
    with pytest.raises(ScenarioError) as info:
        load_scenario(f)
    e = info.value
    assert (e.file, e.line, e.col, e.path) == (str(f), line, col, path)
    assert e.message.startswith(message)
    prefix = f"{f}:{line}:{col}: {path}: " if path else f"{f}:{line}:{col}: "
    assert str(e) == prefix + e.message


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("- a\n- b\n", "<string>:1:1", "a scenario is a mapping with `name:` and `timeline:`, got a list"),
        ("", "<string>:1:1", "the file has no scenario"),
        ("name: t\ntimeline:\n  - {}\n", "<string>:3:5: timeline[0]", "empty timeline event"),
        ("name: t\ntimeline:\n  - 5\n", "<string>:3:5: timeline[0]", "a timeline event must be a mapping"),
        ("name: t\nname: u\n", "<string>:2:1", "invalid YAML"),  # duplicate key
        ("name: t\ntimeline:\n  - llmResponse:\n      - color: red\n",
         "<string>:4:9: timeline[0].llmResponse[0]", "unknown response element 'color'"),
        ("name: t\ntimeline:\n  - llmResponse:\n      - assistant:\n          - just text\n",
         "<string>:5:13: timeline[0].llmResponse[0].assistant[0]",
         'a timed step is [ms, text] or {relativeTime, content}, got a string: write [0, "just text"]'),
        ("name: t\nrepo:\n  files:\n    - path: a\n      contents: {base64: '%%%'}\n",
         "<string>:5:26: repo.files[0].contents.base64", "invalid base64 data"),
        ("name: t\ntimeline:\n  - assert:\n      json:\n        file: {path: a.json, pointer: a/b}\n",
         "<string>:5:39: timeline[0].assert.json.file.pointer", "a JSON pointer starts with '/'"),
        ("name: t\ntimeline:\n  - error:\n      body: [1]\n", "<string>:4:13: timeline[0].error.body",
         "the error body must be a mapping"),
        ("name: t\ntimeline:\n  - assistant:\n      - [0, 5]\n", "<string>:4:13: timeline[0].assistant[0][1]",
         "expected text (a string) or a rich content block, got an integer: quote the value"),
        ("name: t\ntimeline:\n  - assistant:\n      - [0, {type: image}]\n  - agentToolUse: {toolName: ''}\n",
         "<string>:5:30: timeline[1].agentToolUse.toolName", "the tool name must not be empty"),
        ("rules:\n  - if_contains: [hi]\n    response: {assistant: hi}\n", "<string>:2:3: rules",
         "this is an old playbook JSON"),
        ("name: t\nexpect:\n  artifacts:\n    - {type: fiel, pattern: a.txt}\n",
         "<string>:4:14: expect.artifacts[0].type", "unknown artifact type 'fiel': did you mean `file`?"),
    ],
)
def test_inline_documents(text: str, where: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text)
    assert str(info.value).startswith(where + ": ")
    assert message in info.value.message


def test_missing_file_and_non_utf8(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(ScenarioError, match="must be UTF-8 text"):
        load_scenario(bad)


def test_anchors_and_merge_keys_keep_positions() -> None:
    from autocue.scenario import LlmResponse, ToolUse

    sc = load_scenario_text(
        "name: t\n"
        "defaults: &run {cmd: ls, cwd: .}\n"
        "timeline:\n"
        "  - runCmd:\n"
        "      <<: *run\n"
        "      cmd: pwd\n"
        "  - runCmd: *run\n"
    )
    calls = [e.parts[0] for e in sc.timeline if isinstance(e, LlmResponse)]
    assert [(c.args, c.pos.line) for c in calls if isinstance(c, ToolUse)] == [
        ({"cmd": "pwd", "cwd": "."}, 5), ({"cmd": "ls", "cwd": "."}, 2)]  # an alias points at its anchor
    assert [str(w) for w in sc.warnings] == [
        "<string>:2:1: defaults: unknown key 'defaults' in the scenario is ignored"]


def test_duplicate_keys_name_both_lines() -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text("name: t\ntimeline:\n  - runCmd: {cmd: a, cmd: b}\n")
    assert str(info.value) == (
        "<string>:3:22: invalid YAML: duplicate key 'cmd' (first at line 3); keep one of them")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: t\ntimeline: &a\n  - agentActions: *a\n", "<string>:3:19: invalid YAML: an alias refers to a value"),
        ("name: t\ntimeline:\n  - llmResponse:\n      - {}\n",
         "<string>:4:9: timeline[0].llmResponse[0]: empty response"),
        ("name: t\ntimeline: " + "[" * 3000 + "]" * 3000 + "\n",
         "<string>:2:110: the document nests mappings and lists more than 100 levels deep: flatten it"),
    ],
    ids=["recursive-anchor", "empty-element", "deep-nesting"],
)
def test_pathological_documents(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text)
    assert str(info.value).startswith(message)


HELLO = 'name: hello\ninitialPrompt: hi\ntimeline:\n  - llmResponse:\n      - assistant: [[0, "hello"]]\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HELLO.replace("initialPrompt: hi", "initialPrompt: !!int _"),
         "<string>:2:16: cannot read '_' as an integer: write a valid value, or quote it to make it a string"),
        (HELLO.replace("initialPrompt: hi", "initialPrompt: !!float ''"),
         "<string>:2:16: cannot read '' as a number: write a valid value, or quote it to make it a string"),
        ("name: t\ntimeline:\n  - llmResponse:\n      - error: {statusCode: 429, retryAfterSeconds: "
         + "9" * 309 + "}\n",
         "<string>:4:53: timeline[0].llmResponse[0].error.retryAfterSeconds: expected seconds, "
         "got an integer too large for a number"),
    ],
    ids=["int-empty-tag", "float-empty-tag", "retry-309-digits"],
)
def test_values_that_crashed_the_loader_are_scenario_errors_with_a_position(text: str, message: str) -> None:
    """Issue 27 req 12a: these escaped as IndexError and OverflowError."""
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text)
    assert str(info.value).startswith(message), str(info.value)
