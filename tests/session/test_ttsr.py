"""TTSR: a rule that matches a streaming reply cuts it, records it, injects the rule and asks again."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from session_helpers import call, make_session, record, say, settings

from autocue.llm.types import Context, TextContent, ThinkingContent
from autocue.script import ScriptedResponse
from autocue.session import SessionManager, Settings, SettingsError, TtsrRule
from autocue.session.ttsr import load_rule_files
from autocue.testing import call as h_call
from autocue.testing import create_test_session, think, when
from autocue.testing import say as h_say

NO_TODO = TtsrRule("no-todo", r"TODO|FIXME", "Never leave TODOs: finish the work instead.")


async def test_a_match_cuts_the_reply_records_it_and_retries_with_the_rule(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), str(tmp_path / "s"))
    contexts: list[Context] = []

    def second(ctx: Context) -> ScriptedResponse:
        contexts.append(ctx)
        return say("All done, nothing left open.")

    s, p = make_session([say("Done. TODO: write the tests and the rest of it"), second], session_manager=sm,
                        cwd=tmp_path, ttsr_rules=[NO_TODO])
    ev = record(s)
    await s.prompt("finish")
    assert p.remaining == 0
    (trig,) = [e for e in ev if e.type == "ttsr_triggered"]
    assert trig.rule is NO_TODO and trig.match == "TODO" and trig.cut_text == "Done. TODO"
    assert p.calls == 2  # the cut reply was played once, the retry is the second reply
    (cut,) = [e.message for e in ev if e.type == "message_end" and getattr(e.message, "stop_reason", "") == "aborted"]
    assert cut.text.startswith("Done. TODO") and len(cut.text) < 20  # the stream stopped mid-block
    # the context the model saw on the retry: no cut reply, the rule as a system reminder
    roles = [m.role for m in contexts[0].messages]
    assert roles == ["user", "user"]
    assert contexts[0].messages[1].content[0].text.startswith("<system-reminder>\nNever leave TODOs")
    assert [m.role for m in s.messages] == ["user", "custom", "assistant"]
    await s.dispose()
    lines = [json.loads(x) for x in Path(s.session_file or "").read_text().splitlines()][1:]
    kinds = [(e["type"], e.get("customType"), e.get("message", {}).get("role")) for e in lines]
    assert kinds[2:] == [("message", None, "user"), ("custom", "ttsr_triggered", None),
                         ("custom_message", "ttsr_reminder", None),
                         ("message", None, "assistant")]
    assert lines[3]["customType"] == "ttsr_triggered" and lines[3]["data"]["rule"] == "no-todo"
    assert lines[3]["data"]["cutText"] == trig.cut_text
    assert SessionManager.open(s.session_file or "").build_session_context().messages[-1].text.startswith("All done")


async def test_once_fires_only_once_and_repeat_after_gap_fires_again_after_the_gap() -> None:
    once, s1 = NO_TODO, None
    s1, _ = make_session([say("TODO one"), say("TODO two"), say("ok")], ttsr_rules=[once])
    ev = record(s1)
    await s1.prompt("a")
    assert len([e for e in ev if e.type == "ttsr_triggered"]) == 1
    assert s1.get_last_assistant_text() == "TODO two"

    rep = TtsrRule("rep", "TODO", "No TODOs.", repeat_mode="repeat-after-gap", repeat_gap=2)
    s2, p2 = make_session([say("TODO one"), say("fine"), say("TODO again"), say("fine again")], ttsr_rules=[rep])
    ev2 = record(s2)
    await s2.prompt("a")
    await s2.prompt("b")
    assert [e.match for e in ev2 if e.type == "ttsr_triggered"] == ["TODO", "TODO"] and p2.remaining == 0
    assert s2.get_last_assistant_text() == "fine again"


async def test_a_gap_not_reached_lets_the_reply_stand() -> None:
    rep = TtsrRule("rep", "TODO", "No TODOs.", repeat_mode="repeat-after-gap", repeat_gap=10)
    s, _ = make_session([say("TODO one"), say("fine"), say("TODO again")], ttsr_rules=[rep])
    ev = record(s)
    await s.prompt("a")
    await s.prompt("b")
    assert len([e for e in ev if e.type == "ttsr_triggered"]) == 1 and s.get_last_assistant_text() == "TODO again"


@pytest.mark.parametrize("scope, reply", [
    ("thinking", ScriptedResponse([ThinkingContent("I could use eval here"), TextContent("done")])),
    ("tool_args", call("echo", {"text": "rm -rf /"})),
])
async def test_scopes_thinking_and_tool_args(scope: Any, reply: ScriptedResponse) -> None:
    rule = TtsrRule("r", r"eval|rm -rf", "Do not.", scope=scope)
    s, p = make_session([reply, say("ok")], ttsr_rules=[rule])
    ev = record(s)
    await s.prompt("go")
    assert len([e for e in ev if e.type == "ttsr_triggered"]) == 1 and p.remaining == 0
    assert not [e for e in ev if e.type == "tool_execution_start"]  # the cut call never ran


async def test_a_text_rule_ignores_thinking_and_extensions_get_the_event() -> None:
    seen: list[str] = []

    def ext(api: Any) -> None:
        api.add_ttsr_rule(name="ext-rule", trigger="secret", text="Never say secret.")
        api.on("ttsr_triggered", lambda e: seen.append(e.rule.name))

    s, _ = make_session([ScriptedResponse([ThinkingContent("TODO think"), TextContent("the secret is")]),
                         say("ok")], extensions=[ext], ttsr_rules=[NO_TODO])
    await s.prompt("go")
    assert seen == ["ext-rule"]


def test_rules_from_settings_and_files_are_checked(tmp_path: Path) -> None:
    st = Settings.from_dict({"ttsrRules": [{"name": "a", "trigger": "x", "text": "y", "repeatMode": "repeat-after-gap",
                                            "repeatGap": 3}]}, source="s.json")
    s, _ = make_session([], settings_=st)
    assert s.ttsr.rules[0].repeat_gap == 3 and not st.warnings
    with pytest.raises(SettingsError, match=re.escape("s.json: ttsrRules[0]: TTSR rule 'a': trigger '(' is not a")):
        Settings.from_dict({"ttsrRules": [{"name": "a", "trigger": "(", "text": "y"}]}, source="s.json")
    with pytest.raises(SettingsError, match=re.escape("s.json: ttsrRules[0]: unknown key(s) ['when']")):
        Settings.from_dict({"ttsrRules": [{"name": "a", "trigger": "b", "text": "y", "when": 1}]}, source="s.json")
    d = tmp_path / "proj" / ".autocue" / "rules"
    d.mkdir(parents=True)
    (d / "todo.md").write_text("---\ntrigger: TODO\nrepeatMode: repeat-after-gap\nrepeatGap: 4\n---\nNo TODOs.\n")
    (d / "bad.md").write_text("---\ntrigger: TODO\nscope: everywhere\n---\nx\n")
    rules, problems = load_rule_files(str(tmp_path / "proj"), tmp_path / "home")
    assert [(r.name, r.repeat_gap, r.text) for r in rules] == [("todo", 4, "No TODOs.")]
    assert len(problems) == 1 and "bad.md: TTSR rule 'bad': scope must be" in problems[0]
    assert settings() is not None


def test_the_harness_cuts_a_scripted_reply_and_plays_the_next_for_the_retry() -> None:
    with create_test_session(ttsr_rules=[NO_TODO], mock_tools={"bash": "ok"}) as t:
        t.run_sync(when("Fix it", [
            h_call("bash", {"command": "make"}),
            think("almost"),
            h_say("Fixed, but TODO: the edge case"),
            h_say("Fixed, including the edge case."),
        ]))
        (trig,) = t.events.ttsr_triggers()
        assert trig.rule.name == "no-todo" and "TODO" in trig.cut_text
        assert t.session.get_last_assistant_text() == "Fixed, including the edge case."
        assert t.playbook.remaining == 0


async def test_create_agent_session_discovers_rule_files_and_agent_types(tmp_path: Path) -> None:
    from autocue.script import ScriptedProvider
    from autocue.session import create_agent_session

    (tmp_path / ".autocue" / "rules").mkdir(parents=True)
    (tmp_path / ".autocue" / "rules" / "todo.md").write_text("---\ntrigger: TODO\n---\nNo TODOs.\n")
    (tmp_path / ".autocue" / "agents").mkdir(parents=True)
    (tmp_path / ".autocue" / "agents" / "sec.md").write_text("---\ntools: [read]\n---\nFind holes.\n")
    s, _ = await create_agent_session(provider=ScriptedProvider(), cwd=tmp_path, agent_dir=tmp_path / "home")
    assert [r.name for r in s.ttsr.rules] == ["todo"]
    assert s.subagents is not None and s.subagents.types.get("sec").system_prompt == "Find holes."
    await s.dispose()
