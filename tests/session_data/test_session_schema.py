"""Files autocue writes follow pi's schema: a real agent run, persisted like pi persists it, has
the same key order per entry type and message role as the files pi wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from conformance import PI_SESSIONS

from autocue.agent import Agent, tool
from autocue.llm import TextContent, ThinkingContent, Usage, UserMessage
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model
from autocue.session.manager import SessionManager
from autocue.session.messages import convert_message

PI = PI_SESSIONS


def _shape(d: Any) -> Any:
    """Key order, recursively (values replaced by their shape)."""
    if isinstance(d, dict):
        # free-form values, and responseId (optional in pi's type; the scripted provider sets none)
        return [(k, _shape(v)) for k, v in d.items() if k not in ("arguments", "details", "responseId")]
    if isinstance(d, list):
        return [_shape(x) for x in d[:1]]
    return type(d).__name__ if not isinstance(d, bool) else "bool"


def _kinds(lines: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for d in lines:
        key = d["type"]
        if key == "message":
            m = d["message"]
            key = f"message/{m['role']}/{m.get('stopReason', '')}/" + ",".join(b["type"] for b in m["content"])
        out.setdefault(key, _shape(d))
    return out


async def test_agent_run_persisted_like_pi_matches_pi_key_order(tmp_path: Path) -> None:
    @tool
    def read(path: str) -> str:
        """Read a file."""
        return "Hello from pi fixtures!\n"

    provider = ScriptedProvider([
        ScriptedResponse([ThinkingContent("Read it.", "sig"), ScriptedToolCall("read", {"path": "hello.txt"})],
                         usage=Usage.of(120, 42)),
        ScriptedResponse([ThinkingContent("Done.", "sig2"), TextContent("It contains: Hello from pi fixtures!")],
                         usage=Usage.of(120, 42)),
    ])
    sm = SessionManager.create("/workspace", tmp_path)
    sm.append_model_change("autocue", "playbook")
    sm.append_thinking_level_change("medium")
    agent = Agent(provider=provider, model=scripted_model(), tools=[read], convert_message=convert_message)

    def persist(ev: Any) -> None:  # what AgentSession does on message_end
        if ev.type == "message_end" and ev.message.role in ("user", "assistant", "toolResult"):
            sm.append_message(ev.message)

    agent.subscribe(persist)
    # pi's AgentSession always sends the prompt as a list of blocks
    await agent.prompt(UserMessage([TextContent("What is in hello.txt? Think first.")]))
    sm.close()

    ours = [orjson.loads(x) for x in Path(sm.get_session_file() or "").read_bytes().splitlines()]
    theirs = [orjson.loads(x) for x in (PI / "anthropic-thinking.jsonl").read_bytes().splitlines()]
    assert [d["type"] for d in ours] == [d["type"] for d in theirs]
    mine, pis = _kinds(ours), _kinds(theirs)
    assert set(mine) == set(pis)
    for kind, shape in pis.items():
        assert mine[kind] == shape, kind
    again = SessionManager.open(sm.get_session_file() or "")
    assert [m.role for m in again.build_session_context().messages] == ["user", "assistant", "toolResult",
                                                                        "assistant"]
