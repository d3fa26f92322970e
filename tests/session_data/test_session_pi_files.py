"""Session files written by pi itself (conformance/pi-sessions) and hand-made pi-schema files load,
rebuild the right conversation and re-serialize byte for byte."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from conformance import PI_SESSIONS

from autocue.llm import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from autocue.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    SessionHeader,
    SessionInfoEntry,
)
from autocue.session.entry_parsing import entry_from_json
from autocue.session.file_format import iso_to_ms
from autocue.session.manager import SessionManager
from autocue.session.messages import (
    BRANCH_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_PREFIX,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    convert_to_llm,
)

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = PI_SESSIONS
FIXTURES = Path(__file__).resolve().parent / "fixtures"

PI_FILES = sorted(CONFORMANCE.glob("*.jsonl"))
HANDMADE = sorted(FIXTURES.glob("handmade-*.jsonl"))


def test_conformance_files_are_present() -> None:
    assert len(PI_FILES) == 6, f"expected the six pi session files in {CONFORMANCE}"


def _roles(sm: SessionManager) -> list[str]:
    return [m.role for m in sm.build_session_context().messages]


@pytest.mark.parametrize("path", PI_FILES + HANDMADE, ids=lambda p: p.name)
def test_each_loaded_line_reserializes_byte_for_byte(path: Path) -> None:
    sm = SessionManager.open(path)
    assert sm.warnings == []
    lines = path.read_bytes().splitlines()
    entries = [sm.get_header(), *sm.get_entries()]
    assert len(entries) == len(lines)
    for line, entry in zip(lines, entries, strict=True):
        assert orjson.dumps(entry.to_json()) == line


@pytest.mark.parametrize("path", PI_FILES + HANDMADE, ids=lambda p: p.name)
def test_entries_rebuilt_from_fields_write_pi_key_order(path: Path) -> None:
    """Without the kept raw dict, to_json() from the typed fields still gives pi's exact line."""
    for line in path.read_bytes().splitlines():
        e = entry_from_json(orjson.loads(line), keep_raw=False)
        if isinstance(e, MessageEntry):  # also rebuild the message from its typed form
            e = MessageEntry(e.id, e.parent_id, e.timestamp, e.message)
        assert orjson.dumps(e.to_json()) == line


def test_tools_file_rebuilds_the_conversation() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-tools.jsonl")
    assert sm.get_session_id() == "01a20128-7172-7279-abcf-6e1a1168635f"
    assert sm.get_cwd() == "/workspace"
    assert sm.get_leaf_id() == "2e6a4551"
    ctx = sm.build_session_context()
    assert ctx.model == ("mock-anth", "mock-claude")
    assert ctx.thinking_level == "off"
    assert _roles(sm) == ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant",
                          "toolResult", "assistant"]
    first = ctx.messages[1]
    assert isinstance(first, AssistantMessage)
    assert isinstance(first.content[0], TextContent) and first.content[0].text == "I'll create the file first."
    call = first.content[1]
    assert isinstance(call, ToolCall)
    assert call.id == "toolu_01YORBNHIUjHH9PXV7yl7MwwTM"
    assert call.arguments == {"path": "hello.txt", "content": "Hello from pi fixtures!\n"}
    results = [m for m in ctx.messages if isinstance(m, ToolResultMessage)]
    calls = [b for m in ctx.messages if isinstance(m, AssistantMessage) for b in m.tool_calls]
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    assert [r.tool_name for r in results] == ["write", "read", "bash"]
    user = ctx.messages[0]
    assert isinstance(user, UserMessage) and user.timestamp == 1795315757463


def test_continue_file_has_second_turn_under_last_assistant() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-continue.jsonl")
    second_user = sm.get_entry("da492f1a")
    assert isinstance(second_user, MessageEntry) and second_user.parent_id == "2e6a4551"
    roles = _roles(sm)
    assert roles.count("user") == 2 and len(roles) == 12
    last = sm.build_session_context().messages[-1]
    assert isinstance(last, AssistantMessage) and last.text == "hello.txt is 24 bytes long."


def test_parallel_results_follow_call_order_chained() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-parallel.jsonl")
    ctx = sm.build_session_context()
    assert _roles(sm) == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    asst = ctx.messages[1]
    assert isinstance(asst, AssistantMessage)
    ids = [c.id for c in asst.tool_calls]
    assert [m.tool_call_id for m in ctx.messages[2:4] if isinstance(m, ToolResultMessage)] == ids
    # chained, not siblings
    assert sm.get_entry("f69e09de").parent_id == "2982e159"  # type: ignore[union-attr]
    assert [c.id for c in sm.get_children("ac00c95e")] == ["2982e159"]


def test_edit_error_file_keeps_details_and_errors() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-edit-error.jsonl")
    results = [m for m in sm.build_session_context().messages if isinstance(m, ToolResultMessage)]
    assert results[0].details == {"diff": "-1 Hello from pi fixtures!\n+1 Hello, world!", "firstChangedLine": 1}
    assert results[0].is_error is False
    assert [r.is_error for r in results[1:]] == [True, True]
    assert results[1].details == {} and results[2].text == "Tool no_such_tool not found"


def test_thinking_signatures_survive() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-thinking.jsonl")
    ctx = sm.build_session_context()
    assert ctx.thinking_level == "medium"
    thinking = [b for m in ctx.messages if isinstance(m, AssistantMessage) for b in m.content
                if isinstance(b, ThinkingContent)]
    assert [t.thinking_signature for t in thinking] == [
        "EqQBCkYIBxgCKkBmb2N1cy1tb2NrLXNpZ25hdHVyZS0x", "EqQBCkYIBxgCKkBmb2N1cy1tb2NrLXNpZ25hdHVyZS0y"]
    assert convert_to_llm(ctx.messages)[1] is ctx.messages[1]


def test_retry_file_error_reply_is_left_out_of_the_model_context() -> None:
    sm = SessionManager.open(CONFORMANCE / "anthropic-retry.jsonl")
    ctx = sm.build_session_context()
    assert _roles(sm) == ["user", "assistant", "assistant"]
    failed = ctx.messages[1]
    assert isinstance(failed, AssistantMessage) and failed.stop_reason == "error"
    assert failed.error_message is not None and "overloaded_error" in failed.error_message
    llm = convert_to_llm(ctx.messages)
    assert [m.role for m in llm] == ["user", "assistant"]
    assert isinstance(llm[1], AssistantMessage) and llm[1].text == "Hi!"


# ---------------------------------------------------------------------------- hand-made files


def test_handmade_tree_every_entry_type_and_the_branch() -> None:
    sm = SessionManager.open(FIXTURES / "handmade-tree.jsonl")
    types = [e.type for e in sm.get_entries()]
    assert types == ["model_change", "thinking_level_change", "session_info", "message", "message", "message",
                     "message", "label", "custom", "custom_message", "message", "message", "label",
                     "branch_summary", "message", "message"]
    assert sm.get_session_name() == "Refactor greeting"
    assert sm.get_label("a0000004") == "start"
    assert sm.get_label("a000000c") is None  # set to nothing = cleared / never set
    custom = sm.get_entry("a0000009")
    assert isinstance(custom, CustomEntry) and custom.data == {"todos": [{"text": "read it", "done": False}]}
    bs = sm.get_entry("a000000e")
    assert isinstance(bs, BranchSummaryEntry) and bs.from_id == "a0000007" and bs.from_hook is False

    # the leaf is the last line: the branch that went through the branch summary
    ctx = sm.build_session_context()
    assert [m.role for m in ctx.messages] == ["user", "assistant", "toolResult", "assistant", "branchSummary",
                                              "user", "assistant"]
    assert ctx.model == ("other-prov", "other-model")  # the last assistant wins over model_change
    assert ctx.thinking_level == "low"
    summary = ctx.messages[4]
    assert isinstance(summary, BranchSummaryMessage)
    assert summary.timestamp == iso_to_ms("2026-11-22T03:00:07.000Z")
    llm = convert_to_llm(ctx.messages)
    assert isinstance(llm[4], UserMessage)
    assert llm[4].text == BRANCH_SUMMARY_PREFIX + summary.summary + "</summary>"

    # the other branch holds the custom_message (in context) and the custom entry (not in context)
    sm.branch("a000000c")
    ctx = sm.build_session_context()
    assert [m.role for m in ctx.messages] == ["user", "assistant", "toolResult", "assistant", "custom", "user",
                                              "assistant"]
    cm = ctx.messages[4]
    assert isinstance(cm, CustomMessage) and cm.custom_type == "reminder" and cm.details == {"source": "todo"}
    assert convert_to_llm([cm])[0].text == "Remember to run the tests."  # type: ignore[union-attr]
    assert ctx.model == ("mock-anth", "mock-claude")

    # tree: one root, the fork at a0000007 has two children sorted by timestamp
    tree = sm.get_tree()
    assert len(tree) == 1
    node = tree[0]
    while node.entry.id != "a0000007":
        assert len(node.children) == 1
        node = node.children[0]
    assert [c.entry.id for c in node.children] == ["a0000008", "a000000e"]
    start = tree[0].children[0].children[0].children[0]
    assert start.entry.id == "a0000004" and start.label == "start"


def test_handmade_compaction_context_is_summary_kept_then_rest() -> None:
    sm = SessionManager.open(FIXTURES / "handmade-compaction.jsonl")
    assert sm.get_header().parent_session is not None
    comp = sm.get_entry("b0000009")
    assert isinstance(comp, CompactionEntry)
    assert comp.details == {"readFiles": ["a.txt"], "modifiedFiles": []} and comp.first_kept_entry_id == "b0000007"
    ctx = sm.build_session_context()
    assert [m.role for m in ctx.messages] == ["compactionSummary", "user", "assistant", "user", "bashExecution",
                                              "bashExecution", "assistant"]
    cs = ctx.messages[0]
    assert isinstance(cs, CompactionSummaryMessage) and cs.tokens_before == 155
    kept = ctx.messages[1]
    assert isinstance(kept, UserMessage) and kept.text == "Task two: write b.txt."
    llm = convert_to_llm(ctx.messages)
    assert [m.role for m in llm] == ["user", "user", "assistant", "user", "user", "assistant"]  # !! bash dropped
    assert llm[0].text.startswith(COMPACTION_SUMMARY_PREFIX + "## Goal")  # type: ignore[union-attr]
    assert llm[0].text.endswith("</read-files>\n</summary>")  # type: ignore[union-attr]
    assert llm[4].text == "Ran `ls`\n```\na.txt\n\n```"  # type: ignore[union-attr]
    bash = ctx.messages[5]
    assert isinstance(bash, BashExecutionMessage) and bash.exclude_from_context and bash.exit_code == 1


def test_entry_classes_match_types() -> None:
    sm = SessionManager.open(FIXTURES / "handmade-tree.jsonl")
    kinds = {type(e) for e in sm.get_entries()}
    assert {LabelEntry, SessionInfoEntry, CustomMessageEntry, CustomEntry, BranchSummaryEntry} <= kinds
    assert isinstance(sm.get_header(), SessionHeader)
