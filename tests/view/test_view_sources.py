"""What the viewer reads from each kind of recording (the events its page renders)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import PI_SESSIONS, RALPH
from view_helpers import branched_session, page_data, run_dir

from autocue.session.manager import SessionManager
from autocue.simulate import validate_event
from autocue.view import ViewSourceError, load_doc, render_html
from autocue.view.synthetic import write_big_session


def valid(events: list[dict]) -> list[dict]:
    for e in events:
        validate_event(e)
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    return events


def test_pi_session_tool_calls_results_diffs_and_errors() -> None:
    doc = load_doc(str(PI_SESSIONS / "anthropic-edit-error.jsonl"))
    events = valid(doc.events)
    assert doc.kind == "session"
    starts = {e["toolCallId"]: e for e in events if e["type"] == "tool.start"}
    ends = {e["toolCallId"]: e for e in events if e["type"] == "tool.end"}
    assert set(starts) == set(ends) and len(starts) == 3
    edit = next(e for e in ends.values() if e["toolName"] == "edit")
    assert edit["diff"] == "-1 Hello from pi fixtures!\n+1 Hello, world!" and edit["status"] == "ok"
    read = next(e for e in ends.values() if e["toolName"] == "read")
    assert read["error"] is True and read["result"].startswith("ENOENT")
    assert doc.summary["errors"] == 2 and doc.summary["tool calls"] == 3
    assert doc.summary["tokens in"] == 480 and doc.summary["models"] == "mock-anth/mock-claude"


def test_thinking_is_its_own_event() -> None:
    events = valid(load_doc(str(PI_SESSIONS / "anthropic-thinking.jsonl")).events)
    assert any(e["type"] == "thinking" and e["text"] for e in events)


def test_branches_labels_and_compaction(tmp_path: Path) -> None:
    path, ids = branched_session(tmp_path)
    doc = load_doc(str(path))
    by_entry = {e["entryId"]: e for e in valid(doc.events) if "entryId" in e and e["type"] != "tool.start"}
    assert by_entry[ids["new"]]["branch"] == 0 and by_entry[ids["q1"]]["branch"] == 0
    assert by_entry[ids["old"]]["branch"] == 1  # the abandoned attempt
    assert by_entry[ids["old"]]["parentId"] == by_entry[ids["new"]]["parentId"] == ids["r1"]
    assert by_entry[ids["new"]]["label"] == "good answer"
    assert by_entry[ids["label"]]["type"] == "marker" and by_entry[ids["label"]]["label"] == "good answer"
    assert by_entry[ids["compaction"]] == {**by_entry[ids["compaction"]], "type": "compaction",
                                           "summary": "Earlier: the user asked to fix calc.py", "tokensBefore": 1234}
    assert doc.summary["branches"] == 2 and doc.summary["labels"] == 1


def test_loop_recording_iterations_bus_and_terminal() -> None:
    doc = load_doc(str(RALPH / "cassettes_e2e_multi-iter.jsonl"))
    events = valid(doc.events)
    assert doc.kind == "loop"
    assert [(e["n"], e["hat"]) for e in events if e["type"] == "iteration"] == [(1, "default"), (2, "default"),
                                                                                 (3, "default")]
    text = "".join(e["content"] for e in events if e["type"] == "terminal")
    assert text.startswith("Iteration 1: Starting the multi-step task.\nContinuing") and "LOOP_COMPLETE" in text
    end = next(e for e in events if e["type"] == "loop.end")
    assert (end["reason"], end["iterations"], end.get("error")) == ("CompletionPromise", 3, None)
    routed = load_doc(str(RALPH / "cassettes_event-routing_er-007-events-dont-route-to-source.jsonl"))
    assert [e["topic"] for e in valid(routed.events) if e["type"] == "bus"]


def test_run_directory_timeline_screens_cast_and_failures(tmp_path: Path) -> None:
    doc = load_doc(str(run_dir(tmp_path)))
    events = valid(doc.events)
    assert doc.kind == "run" and doc.summary == {"scenarios": 2, "passed": 1, "failed": 1,
                                                 "goldens": "0 written, 2 compared, 1 failed"}
    npm = [e for e in events if e.get("scenario") == "npm_test"]
    # the scenario's timeline: its relative file read from where the run started (the report's cwd)
    assert [e["type"] for e in npm][:3] == ["session.start", "user", "thinking"]
    assert [e["text"] for e in npm if e["type"] == "info" and e["kind"] == "ran"] == [
        "npm_test.yaml:20:5 Screenshot: after_edits: match"]  # the transcript
    screen = next(e for e in npm if e["type"] == "screen")
    assert (screen["label"], screen["status"], screen["passed"], screen.get("error")) == ("after_edits", "match",
                                                                                       True, None)
    assert screen["golden"] == screen["actual"] == "$ npm test\nPASS\n" and "diff" not in screen
    assert next(e for e in npm if e["type"] == "cast")["cast"].startswith('{"version": 2')
    broken = [e for e in events if e.get("scenario") == "broken"]
    bad = next(e for e in broken if e["type"] == "screen")
    golden = tmp_path / "project/goldens/cmd/broken/100x30/screenshots/final.golden"
    actual = next((tmp_path / "run").rglob("final.actual"))
    assert (bad["passed"], bad["error"], bad["golden"], bad["actual"]) == (False, True, "all green\nexit 0\n",
                                                                         "all green\nexit 1\n")
    shown = "goldens/cmd/broken/100x30/screenshots/final.golden"  # inside where the run started: relative to it
    assert (bad["goldenPath"], bad["actualPath"]) == (shown, str(actual))
    assert bad["diff"] == f"--- {shown}\n+++ {actual}\n@@ -1,2 +1,2 @@\n all green\n-exit 0\n+exit 1\n"
    failure = next(e for e in broken if e["type"] == "failure")
    assert failure["position"] == "broken.yaml:9:5" and failure["error"] is True
    assert failure["diff"] == f"--- {golden}\n+++ {actual}\n@@ -1,2 +1,2 @@\n all green\n-exit 0\n+exit 1\n"
    assert doc.warnings == [f"broken: timeline not shown: no scenario file missing.yaml (looked in "
                            f"{tmp_path / 'project'}, {tmp_path / 'run'})"]
    results = [(e["scenario"], e["label"]) for e in events if e["type"] == "marker" and e["kind"] == "result"]
    assert results == [("npm_test", "passed in 1.25 s"), ("broken", "FAILED in 0.50 s")]


def test_page_is_self_contained_and_data_survives_script_tags(tmp_path: Path) -> None:
    from autocue.llm.types import AssistantMessage, TextContent, UserMessage

    sm = SessionManager.create(tmp_path, tmp_path)
    evil = "</script><script>alert(1)</script><!-- \u2028 & é"
    sm.append_message(UserMessage(evil))
    sm.append_message(AssistantMessage([TextContent("ok")]))
    path = sm.get_session_file()
    assert path is not None
    html = render_html(load_doc(path))
    assert html.count("<script") == 2  # the data block and the viewer, nothing else
    assert "<link" not in html and " src=" not in html and "@import" not in html
    assert "connect-src 'none'" in html
    data = page_data(html)
    assert next(e["text"] for e in data["events"] if e["type"] == "user") == evil


def test_live_page_may_connect_only_to_its_server() -> None:
    from autocue.view.sources import ViewDoc

    html = render_html(ViewDoc("live", "s", live_url="http://127.0.0.1:4321/api/v1/sessions/sim-1/events"))
    assert "connect-src http://127.0.0.1:4321" in html
    assert page_data(html)["live"] == "http://127.0.0.1:4321/api/v1/sessions/sim-1/events"


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file or directory"),
    ("", "the file is empty"),
    ("not json\n", ":1: not JSON"),
    ('[1, 2]\n', ":1: neither a session file"),
])
def test_unreadable_inputs_name_the_file_and_what_to_give(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "in.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ViewSourceError, match=message) as info:
        load_doc(str(path))
    assert str(path) in str(info.value)


def test_a_corrupted_loop_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text('{"ts": 1, "event": "_meta.loop_start", "data": {}}\n{broken\n')
    with pytest.raises(ViewSourceError, match=r"session.jsonl:2: corrupted session record"):
        load_doc(str(path))


def test_a_folder_without_report_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ViewSourceError, match=r"not a run directory of `autocue run` \(no report\.json"):
        load_doc(str(tmp_path))
    (tmp_path / "report.json").write_text("{}")
    with pytest.raises(ViewSourceError, match=r"report.json: expected \{\"scenarios\""):
        load_doc(str(tmp_path))


@pytest.mark.slow
def test_large_session_keeps_every_entry(tmp_path: Path) -> None:
    path = write_big_session(tmp_path / "big.jsonl", 20_000)
    doc = load_doc(str(path))
    assert doc.summary["entries"] == 20_000
    assert doc.summary["errors"] == sum(1 for i in range(20_000) if i % 4 == 2 and i % 97 == 2)
    assert len(page_data(render_html(doc))["events"]) == len(doc.events)


@pytest.mark.parametrize(("usage", "says"), [
    ('{"input":"lots","output":3}', "usage.input must be a number, got str 'lots'"),
    ('{"input":1,"output":[2]}', "usage.output must be a number, got list [2]"),
    ('{"input":1,"output":2,"cost":{"total":"free"}}', "usage.cost.total must be a number, got str 'free'"),
])
def test_a_usage_value_that_is_not_a_number_names_the_file_line_and_field(tmp_path: Path, usage: str,
                                                                          says: str) -> None:
    """Issue 27 req 12e: `autocue view` said "unexpected error: ValueError: invalid literal for int()"."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
        '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n'
        '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":'
        '{"role":"assistant","content":[{"type":"text","text":"yo"}],"usage":' + usage + ',"stopReason":"stop",'
        '"timestamp":2}}\n')
    with pytest.raises(ViewSourceError) as info:
        load_doc(str(path))
    assert str(info.value) == f"{path}:3: message entry a2: {says}; fix or remove the entry"
