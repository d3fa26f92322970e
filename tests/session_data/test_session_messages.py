"""Session message roles: JSON form, parsing, and pi's convertToLlm (also inside a real Agent run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import PI_SESSIONS

from autocue.agent import Agent
from autocue.llm import AssistantMessage, Context, ImageContent, TextContent, UserMessage
from autocue.script import ScriptedProvider, ScriptedResponse, scripted_model
from autocue.session.manager import SessionManager
from autocue.session.messages import (
    BRANCH_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_PREFIX,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    agent_message_from_json,
    bash_execution_to_text,
    convert_message,
)


def test_json_forms_use_pi_names_and_order() -> None:
    bash = BashExecutionMessage("ls", "out", 2, False, True, "/tmp/full.log", True, timestamp=7)
    assert list(bash.to_json().items()) == [
        ("role", "bashExecution"), ("command", "ls"), ("output", "out"), ("exitCode", 2), ("cancelled", False),
        ("truncated", True), ("fullOutputPath", "/tmp/full.log"), ("timestamp", 7), ("excludeFromContext", True)]
    assert "exitCode" not in BashExecutionMessage("x", "", None, True, False).to_json()
    custom = CustomMessage("ext", [TextContent("hi"), ImageContent("AA==", "image/png")], False, {"a": 1}, 9)
    assert list(custom.to_json()) == ["role", "customType", "content", "display", "details", "timestamp"]
    assert BranchSummaryMessage("s", "abc", 3).to_json() == {"role": "branchSummary", "summary": "s",
                                                             "fromId": "abc", "timestamp": 3}
    assert list(CompactionSummaryMessage("s", 10, 4).to_json()) == ["role", "summary", "tokensBefore", "timestamp"]


@pytest.mark.parametrize("msg", [
    BashExecutionMessage("ls", "out", 0, False, False, timestamp=1),
    CustomMessage("ext", "text", True, None, 2),
    CustomMessage("ext", [TextContent("t")], False, {"x": [1]}, 3),
    BranchSummaryMessage("s", "abc", 3),
    CompactionSummaryMessage("s", 10, 4),
    UserMessage("u", timestamp=5),
])
def test_agent_message_round_trip(msg: object) -> None:
    d = msg.to_json()  # type: ignore[attr-defined]
    back = agent_message_from_json(d)
    assert back == msg and back.to_json() == d


def test_v2_hook_message_reads_as_custom_and_unknown_role_fails() -> None:
    m = agent_message_from_json({"role": "hookMessage", "customType": "h", "content": "c", "display": True,
                                 "timestamp": 1})
    assert isinstance(m, CustomMessage) and m.custom_type == "h"
    with pytest.raises(ValueError, match="unknown message role 'system'"):
        agent_message_from_json({"role": "system"})
    with pytest.raises(ValueError, match="bashExecution message is missing field 'command'"):
        agent_message_from_json({"role": "bashExecution"})


def test_bash_execution_text_variants() -> None:
    assert bash_execution_to_text(BashExecutionMessage("ls", "a", 0, False, False)) == "Ran `ls`\n```\na\n```"
    assert bash_execution_to_text(BashExecutionMessage("ls", "", 3, False, False)) == (
        "Ran `ls`\n(no output)\n\nCommand exited with code 3")
    assert bash_execution_to_text(BashExecutionMessage("ls", "a", None, True, True, "/f")) == (
        "Ran `ls`\n```\na\n```\n\n(command cancelled)\n\n[Output truncated. Full output: /f]")


def test_convert_message_per_role() -> None:
    ok = AssistantMessage([TextContent("x")])
    assert convert_message(ok) is ok
    assert convert_message(AssistantMessage(stop_reason="error", error_message="e")) is None
    assert convert_message(AssistantMessage(stop_reason="aborted")) is None
    assert convert_message(BashExecutionMessage("ls", "", 0, False, False, exclude_from_context=True)) is None
    c = convert_message(CustomMessage("k", "hello", False, timestamp=11))
    assert isinstance(c, UserMessage) and c.text == "hello" and c.timestamp == 11
    b = convert_message(BranchSummaryMessage("S", "x", 1))
    assert isinstance(b, UserMessage) and b.text == BRANCH_SUMMARY_PREFIX + "S</summary>"
    s = convert_message(CompactionSummaryMessage("S", 1, 1))
    assert isinstance(s, UserMessage) and s.text == COMPACTION_SUMMARY_PREFIX + "S\n</summary>"
    assert s.text.startswith("The conversation history before this point was compacted into the following summary:")


async def test_agent_with_convert_message_sends_session_roles_as_user_messages() -> None:
    """A rebuilt session context (summary + custom message) goes to the model as user messages."""
    sm = SessionManager.in_memory()
    u = sm.append_message(UserMessage("old", timestamp=1))
    sm.append_message(AssistantMessage([TextContent("old reply")], stop_reason="stop", timestamp=2))
    sm.append_message(AssistantMessage(stop_reason="error", error_message="529 overloaded", timestamp=3))
    sm.append_compaction("SUMMARY", u, 100)
    sm.append_custom_message_entry("ext", "be brief", True)
    seen: list[Context] = []

    def reply(ctx: Context) -> ScriptedResponse:
        seen.append(ctx)
        return ScriptedResponse([TextContent("done")])

    agent = Agent(provider=ScriptedProvider([reply]), model=scripted_model(),
                  messages=sm.build_session_context().messages, convert_message=convert_message)
    await agent.prompt("next")
    (ctx,) = seen
    assert [m.role for m in ctx.messages] == ["user", "user", "assistant", "user", "user"]
    texts = [m.text for m in ctx.messages]
    assert texts[0].startswith(COMPACTION_SUMMARY_PREFIX + "SUMMARY") and texts[1:] == [
        "old", "old reply", "be brief", "next"]


def test_every_message_of_the_real_files_parses_to_its_type_and_back_to_its_json() -> None:
    import orjson

    from autocue.llm import ToolResultMessage

    files = [*PI_SESSIONS.glob("*.jsonl"), *(Path(__file__).parent / "fixtures").glob("*.jsonl")]
    types = {"user": UserMessage, "assistant": AssistantMessage, "toolResult": ToolResultMessage}
    seen: dict[str, int] = {}
    for f in files:
        for line in f.read_bytes().splitlines():
            d = orjson.loads(line)
            if d.get("type") == "message" and d["message"]["role"] in types:
                role = d["message"]["role"]
                m = agent_message_from_json(d["message"])
                assert type(m) is types[role] and m.to_json() == d["message"], (f.name, d["id"])
                seen[role] = seen.get(role, 0) + 1
    assert sorted(seen) == ["assistant", "toolResult", "user"] and sum(seen.values()) > 50


_USAGE = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
          "cost": {"input": 0.5, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.5}}
_A = {"role": "assistant", "content": [{"type": "text", "text": "x"}], "api": "a", "provider": "p", "model": "m",
      "usage": _USAGE, "stopReason": "stop", "timestamp": 1}


@pytest.mark.parametrize(("d", "error"), [
    ({**_A, "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]},
     "assistant messages cannot hold image blocks"),
    ({**_A, "content": [{"type": "mystery"}]}, "unknown content block type 'mystery'"),
    ({"role": "toolResult", "content": [{"type": "text", "text": "r"}], "timestamp": 3},
     "toolResult message is missing field 'toolCallId'"),
    ({"role": "user", "timestamp": 2}, "user message is missing field 'content'"),
])
def test_malformed_messages_raise_a_value_error_naming_the_problem(d: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        agent_message_from_json(d)


def test_the_message_parsers_hold_no_self_disabling_fast_path() -> None:
    """Issue 14: fast parsers that a slot check had switched off silently were deleted; none may come back."""
    import autocue.session.messages as messages

    leftovers = [n for n in vars(messages) if "fast" in n.lower() or "slots_ok" in n.lower()]
    assert leftovers == []


def test_unknown_role_in_a_file_is_kept_and_not_sent(tmp_path: Path) -> None:
    from autocue.session.messages import UnknownMessage, convert_to_llm

    p = tmp_path / "u.jsonl"
    odd = (b'{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"t",'
           b'"message":{"role":"contextTransform","x":1}}')
    p.write_bytes(
        b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
        b'{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}\n'
        + odd + b"\n")
    sm = SessionManager.open(p)
    msgs = sm.build_session_context().messages
    assert [m.role for m in msgs] == ["user", "contextTransform"] and isinstance(msgs[1], UnknownMessage)
    assert [m.role for m in convert_to_llm(msgs)] == ["user"]
    import orjson
    assert orjson.dumps(sm.get_entries()[1].to_json()) == odd
