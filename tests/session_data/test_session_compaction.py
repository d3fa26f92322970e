"""Compaction: token accounting, overflow detection, cut points (split turns), preparation and
compact() with a scripted summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autocue.llm import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from autocue.llm.stream import AssistantMessageEventStream
from autocue.script import ScriptedError, ScriptedProvider, ScriptedResponse, scripted_model
from autocue.session.compaction import CompactionSettings, compact, find_cut_point, prepare_compaction, should_compact
from autocue.session.context_tokens import (
    estimate_context_tokens,
    estimate_tokens,
    get_context_tokens,
    is_context_overflow,
)
from autocue.session.errors import CompactionError
from autocue.session.manager import SessionManager
from autocue.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from autocue.session.summarization import (
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
    serialize_conversation,
)


def _u(chars: int, ch: str = "u") -> UserMessage:
    return UserMessage([TextContent(ch * chars)], timestamp=1)


def _a(chars: int = 0, *, calls: list[ToolCall] | None = None, usage: Usage | None = None,
       stop: str = "stop") -> AssistantMessage:
    content: list[TextContent | ThinkingContent | ToolCall] = [TextContent("a" * chars)] if chars else []
    content += calls or []
    return AssistantMessage(content, api="x", provider="p", model="m", usage=usage or Usage(),
                            stop_reason=stop if not calls else "toolUse", timestamp=1)  # type: ignore[arg-type]


def _tr(call_id: str, chars: int) -> ToolResultMessage:
    return ToolResultMessage(call_id, "read", [TextContent("r" * chars)], timestamp=1)


@dataclass
class Recorder:
    """Wraps a provider and records what each call was given."""

    inner: ScriptedProvider
    calls: list[tuple[Context, StreamOptions]] = field(default_factory=list)

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        self.calls.append((context, options))
        return self.inner.stream(model, context, options)


def _say(text: str) -> ScriptedResponse:
    return ScriptedResponse([TextContent(text)])


# ---------------------------------------------------------------------------- tokens


def test_estimate_tokens_per_role() -> None:
    assert estimate_tokens(UserMessage("abcde")) == 2  # ceil(5/4)
    assert estimate_tokens(UserMessage([TextContent("abcd"), ImageContent("xx", "image/png")])) == 1 + 1200
    call = ToolCall("c", "read", {"path": "a"})  # 4 + len('{"path":"a"}') = 16
    assert estimate_tokens(_a(calls=[call])) == 4
    assert estimate_tokens(AssistantMessage([ThinkingContent("t" * 8), TextContent("x" * 4)])) == 3
    assert estimate_tokens(_tr("c", 9)) == 3
    assert estimate_tokens(BashExecutionMessage("ls", "ab", 0, False, False)) == 1
    assert estimate_tokens(CustomMessage("k", "x" * 12, True)) == 3
    assert estimate_tokens(BranchSummaryMessage("s" * 5, "id")) == 2
    assert estimate_tokens(CompactionSummaryMessage("s" * 4, 1)) == 1


def test_context_tokens_use_last_valid_usage_plus_trailing_estimates() -> None:
    msgs = [_u(40), _a(4, usage=Usage.of(1000, 50)), _u(400), _a(usage=Usage.of(9999), stop="error")]
    est = estimate_context_tokens(msgs)
    assert est.usage_tokens == 1050 and est.last_usage_index == 1
    assert est.trailing_tokens == 100 + 0 and est.tokens == 1150  # the error reply has no content
    assert get_context_tokens([_u(40), _u(4)]) == 11
    u = Usage(input=10, output=5, cache_read=3, cache_write=2, total_tokens=0)
    assert get_context_tokens([_a(usage=u)]) == 20


def test_should_compact_threshold() -> None:
    s = CompactionSettings()
    assert s.reserve_tokens == 16384 and s.keep_recent_tokens == 20000 and s.enabled
    assert not should_compact(100_000 - 16384, 100_000, s)
    assert should_compact(100_000 - 16383, 100_000, s)
    assert not should_compact(10**9, 100_000, CompactionSettings(enabled=False))


@pytest.mark.parametrize("text", [
    "400 context overflow: prompt is too long: 213462 tokens > 200000 maximum",
    "Your input exceeds the context window of this model",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
    "This endpoint's maximum context length is 128000 tokens. However, you requested about 200000 tokens",
    "413 status code (no body)",
    "context_length_exceeded",
])
def test_is_context_overflow_patterns(text: str) -> None:
    assert is_context_overflow(AssistantMessage(stop_reason="error", error_message=text))


def test_is_context_overflow_negatives_and_silent_overflow() -> None:
    assert not is_context_overflow(AssistantMessage(stop_reason="error", error_message="429 rate_limit_error"))
    assert not is_context_overflow(AssistantMessage(stop_reason="stop", error_message="prompt is too long"))
    big = AssistantMessage(stop_reason="stop", usage=Usage(input=900, cache_read=200))
    assert is_context_overflow(big, 1000) and not is_context_overflow(big)


def test_scripted_overflow_error_is_detected() -> None:
    err = ScriptedError("213462 tokens > 200000 maximum", kind="context_overflow")
    assert is_context_overflow(AssistantMessage(stop_reason="error", error_message=err.error_text()))


# ---------------------------------------------------------------------------- cut points


def _session(*msgs: object) -> tuple[SessionManager, list[str]]:
    sm = SessionManager.in_memory()
    ids = [sm.append_message(m) for m in msgs]  # type: ignore[arg-type]
    return sm, ids


def test_cut_at_user_message_keeps_recent_turns() -> None:
    sm, ids = _session(_u(200), _a(200), _u(200), _a(200), _u(200), _a(200, usage=Usage.of(300)))  # 50 tokens each
    entries = sm.get_branch()
    cut = find_cut_point(entries, 0, len(entries), 100)
    assert (cut.first_kept_entry_index, cut.is_split_turn, cut.turn_start_index) == (4, False, -1)
    prep = prepare_compaction(entries, CompactionSettings(keep_recent_tokens=100))
    assert prep is not None and prep.first_kept_entry_id == ids[4] and not prep.is_split_turn
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant", "user", "assistant"]
    assert prep.turn_prefix_messages == []
    assert prep.tokens_before == 300


def test_never_cuts_at_a_tool_result_and_splits_the_turn() -> None:
    call = ToolCall("c1", "read", {"path": "src/a.py"})
    sm, ids = _session(_u(40), _a(40), _u(40), _a(calls=[call]), _tr("c1", 400), _a(40))
    entries = sm.get_branch()
    # walking back: final reply 10, tool result 100 -> budget reached at the tool result,
    # which is not a valid cut: the cut moves forward to the final assistant reply.
    cut = find_cut_point(entries, 0, len(entries), 100)
    assert cut.first_kept_entry_index == 5 and cut.is_split_turn and cut.turn_start_index == 2
    prep = prepare_compaction(entries, CompactionSettings(keep_recent_tokens=100))
    assert prep is not None and prep.first_kept_entry_id == ids[5]
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant"]
    assert [m.role for m in prep.turn_prefix_messages] == ["user", "assistant", "toolResult"]
    assert prep.file_ops.read == {"src/a.py"}


def test_cut_moves_back_over_non_message_entries() -> None:
    sm = SessionManager.in_memory()
    sm.append_message(_u(200))
    sm.append_message(_a(200))
    mc = sm.append_model_change("p2", "m2")
    sm.append_thinking_level_change("high")
    sm.append_message(_u(200))
    sm.append_message(_a(200))
    entries = sm.get_branch()
    cut = find_cut_point(entries, 0, len(entries), 100)
    assert entries[cut.first_kept_entry_index].id == mc
    assert not cut.is_split_turn  # the kept part starts with settings, then the user message
    prep = prepare_compaction(entries, CompactionSettings(keep_recent_tokens=100))
    assert prep is not None and prep.turn_prefix_messages == []
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant"]


def test_prepare_returns_none_right_after_a_compaction_and_uses_previous_summary() -> None:
    sm, ids = _session(_u(200), _a(200, calls=[ToolCall("w", "write", {"path": "out.txt"})]),
                       _tr("w", 4), _a(200))
    sm.append_compaction("old summary", ids[1], 500, {"readFiles": ["in.txt"], "modifiedFiles": ["mod.txt"]})
    assert prepare_compaction(sm.get_branch(), CompactionSettings()) is None
    sm.append_message(_u(200))
    sm.append_message(_a(200, calls=[ToolCall("e", "edit", {"path": "in.txt"})]))
    sm.append_message(_tr("e", 4))
    sm.append_message(_u(200))
    sm.append_message(_a(200))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=100))
    assert prep is not None and prep.previous_summary == "old summary"
    # only entries after the previous compaction are summarized
    assert [m.role for m in prep.messages_to_summarize] == ["user", "assistant", "toolResult"]
    assert prep.file_ops.read == {"in.txt"} and prep.file_ops.edited == {"mod.txt", "in.txt"}


# ---------------------------------------------------------------------------- serialization


def test_serialize_conversation_format() -> None:
    text = serialize_conversation([
        UserMessage("fix it"),
        AssistantMessage([ThinkingContent("hmm"), TextContent("ok"), ToolCall("1", "read", {"path": "a", "n": 2}),
                          ToolCall("2", "bash", {"command": "ls -1"})]),
        ToolResultMessage("1", "read", [TextContent("x" * 2005)]),
    ])
    assert text == (
        "[User]: fix it\n\n[Assistant thinking]: hmm\n\n[Assistant]: ok\n\n"
        '[Assistant tool calls]: read(path="a", n=2); bash(command="ls -1")\n\n'
        "[Tool result]: " + "x" * 2000 + "\n\n[... 5 more characters truncated]"
    )


# ---------------------------------------------------------------------------- compact()


async def test_compact_summarizes_through_the_provider() -> None:
    call = ToolCall("c1", "read", {"path": "notes.md"})
    wcall = ToolCall("c2", "write", {"path": "out.md"})
    sm, ids = _session(_u(200, "q"), _a(200, calls=[call]), _tr("c1", 40), _a(200, calls=[wcall]), _tr("c2", 4),
                       _a(40), _u(200), _a(200))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=100, reserve_tokens=1000))
    assert prep is not None and not prep.is_split_turn
    rec = Recorder(ScriptedProvider([_say("## Goal\nRead notes, write out.md.")]))
    result = await compact(prep, scripted_model(), rec, custom_instructions="focus on files")
    assert result.summary == (
        "## Goal\nRead notes, write out.md.\n\n<read-files>\nnotes.md\n</read-files>\n\n"
        "<modified-files>\nout.md\n</modified-files>"
    )
    assert result.details == {"readFiles": ["notes.md"], "modifiedFiles": ["out.md"]}
    assert result.first_kept_entry_id == ids[6] and result.tokens_before == prep.tokens_before
    (ctx, opts), = rec.calls
    assert ctx.system_prompt == SUMMARIZATION_SYSTEM_PROMPT and opts.max_tokens == 800
    prompt = ctx.messages[0].text  # type: ignore[union-attr]
    assert prompt.startswith("<conversation>\n[User]: " + "q" * 200 + "\n\n[Assistant]: ")
    assert '[Assistant tool calls]: read(path="notes.md")' in prompt
    assert prompt.endswith("</conversation>\n\n" + SUMMARIZATION_PROMPT + "\n\nAdditional focus: focus on files")

    # persisting the result: the context becomes summary + kept entries
    sm.append_compaction(result.summary, result.first_kept_entry_id, result.tokens_before, result.details)
    msgs = sm.build_session_context().messages
    assert [m.role for m in msgs] == ["compactionSummary", "user", "assistant"]
    assert isinstance(msgs[0], CompactionSummaryMessage) and msgs[0].summary == result.summary


async def test_compact_split_turn_makes_history_then_prefix_calls() -> None:
    call = ToolCall("c1", "read", {"path": "big.log"})
    sm, ids = _session(_u(40), _a(40), _u(40), _a(calls=[call]), _tr("c1", 400), _a(40))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=100, reserve_tokens=1000))
    assert prep is not None and prep.is_split_turn
    rec = Recorder(ScriptedProvider([_say("HISTORY"), _say("PREFIX")]))
    result = await compact(prep, scripted_model(), rec)
    assert result.summary == ("HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"
                              "\n\n<read-files>\nbig.log\n</read-files>")
    assert [o.max_tokens for _, o in rec.calls] == [800, 500]
    assert rec.calls[1][0].messages[0].text.endswith(TURN_PREFIX_SUMMARIZATION_PROMPT)  # type: ignore[union-attr]
    assert result.first_kept_entry_id == ids[5]


async def test_compact_split_turn_without_history_makes_one_call() -> None:
    call = ToolCall("c1", "read", {"path": "big.log"})
    sm, _ = _session(_u(40), _a(calls=[call]), _tr("c1", 400), _a(40))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=100))
    assert prep is not None and prep.is_split_turn and prep.messages_to_summarize == []
    rec = Recorder(ScriptedProvider([_say("PREFIX")]))
    result = await compact(prep, scripted_model(), rec)
    assert result.summary.startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")
    assert len(rec.calls) == 1


async def test_compact_uses_update_prompt_with_previous_summary() -> None:
    sm, ids = _session(_u(200), _a(200))
    sm.append_compaction("PREVIOUS", ids[0], 100)
    for _ in range(2):
        sm.append_message(_u(200))
        sm.append_message(_a(200))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=100))
    assert prep is not None
    rec = Recorder(ScriptedProvider([_say("UPDATED")]))
    await compact(prep, scripted_model(), rec)
    prompt = rec.calls[0][0].messages[0].text  # type: ignore[union-attr]
    assert "</conversation>\n\n<previous-summary>\nPREVIOUS\n</previous-summary>\n\n" in prompt
    assert prompt.endswith(UPDATE_SUMMARIZATION_PROMPT)


async def test_compact_failure_raises_compaction_error() -> None:
    sm, _ = _session(_u(200), _a(200), _u(200), _a(200))
    prep = prepare_compaction(sm.get_branch(), CompactionSettings(keep_recent_tokens=50))
    assert prep is not None
    provider = ScriptedProvider([ScriptedResponse(error=ScriptedError("server down", status=503))])
    with pytest.raises(CompactionError, match="Summarization failed: 503 server down"):
        await compact(prep, scripted_model(), provider)


# ---------------------------------------------------------------------------- branch summaries


async def test_branch_summary_of_the_branch_being_left(tmp_path: Path) -> None:
    import shutil

    from autocue.session.branch_summary import (
        BRANCH_SUMMARY_PREAMBLE,
        BRANCH_SUMMARY_PROMPT,
        collect_entries_for_branch_summary,
        generate_branch_summary,
    )

    copy = tmp_path / "tree.jsonl"
    shutil.copy(Path(__file__).parent / "fixtures" / "handmade-tree.jsonl", copy)
    sm = SessionManager.open(copy)
    old_leaf = sm.get_leaf_id()
    collected = collect_entries_for_branch_summary(sm, old_leaf, "a000000c")
    assert collected.common_ancestor_id == "a0000007"
    assert [e.id for e in collected.entries] == ["a000000e", "a000000f", "a0000010"]

    rec = Recorder(ScriptedProvider([_say("## Goal\nLouder greeting.")]))
    result = await generate_branch_summary(collected.entries, scripted_model(), rec)
    assert result.summary == (BRANCH_SUMMARY_PREAMBLE + "## Goal\nLouder greeting."
                              "\n\n<read-files>\nhello.txt\n</read-files>")
    assert result.details == {"readFiles": ["hello.txt"], "modifiedFiles": []}
    (ctx, opts), = rec.calls
    prompt = ctx.messages[0].text  # type: ignore[union-attr]
    assert prompt.startswith("<conversation>\n[User]: The following is a summary of a branch")
    assert "[User]: Instead, make the greeting louder." in prompt and prompt.endswith(BRANCH_SUMMARY_PROMPT)
    assert opts.max_tokens == 2048

    sm.branch_with_summary("a000000c", result.summary or "", result.details)
    assert [m.role for m in sm.build_session_context().messages][-3:] == ["user", "assistant", "branchSummary"]

    failed = await generate_branch_summary(collected.entries, scripted_model(),
                                           ScriptedProvider([ScriptedResponse(error=ScriptedError("down"))]))
    assert failed.error == "down" and failed.summary is None
    assert (await generate_branch_summary([], scripted_model(), rec)).summary == "No content to summarize"
