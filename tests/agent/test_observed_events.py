"""The agent builds only the events somebody reads (``observes``), and takes a scripted reply whole
when nobody reads its deltas; a listener that reads everything still sees the full stream."""

from __future__ import annotations

from typing import Any

from agent_helpers import call, echo_tool, say, think_say

from autocue.agent import Agent
from autocue.llm import AssistantMessage
from autocue.script import ScriptedProvider, scripted_model


def _agent(steps: list[Any]) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(steps, chunk_size=4)
    return Agent(provider=provider, model=scripted_model(), tools=[echo_tool()]), provider


BOOKKEEPING = ["message_start", "message_end", "message_start", "message_end", "tool_execution_start",
               "tool_execution_end", "message_start", "message_end", "message_start", "message_end"]


async def test_a_listener_that_reads_only_message_end_gets_no_unread_events() -> None:
    agent, provider = _agent([call("echo", {"text": "hi"}), think_say("hmm, a long thought", "all done now")])
    seen: list[str] = []
    agent.subscribe(lambda ev: seen.append(ev.type), observes=lambda t: t == "message_end")
    new = await agent.prompt("go")
    # the agent's own bookkeeping events still go out; turn, agent and delta events are not built
    assert seen == BOOKKEEPING
    assert [m.role for m in new] == ["user", "assistant", "toolResult", "assistant"]
    last = new[-1]
    assert isinstance(last, AssistantMessage) and last.text == "all done now" and last.stop_reason == "stop"
    assert provider.remaining == 0


async def test_the_whole_reply_equals_the_streamed_one() -> None:
    steps = [call("echo", {"text": "hi"}), think_say("hmm, a long thought", "all done now")]
    whole, _ = _agent(steps)
    whole.subscribe(lambda ev: None, observes=lambda t: False)
    streamed, _ = _agent(list(steps))
    updates: list[Any] = []
    streamed.subscribe(updates.append)
    a, b = await whole.prompt("go"), await streamed.prompt("go")
    assert [_no_time(m.to_json()) for m in a[1:]] == [_no_time(m.to_json()) for m in b[1:]]
    assert sum(1 for e in updates if e.type == "message_update") > 6  # the reader got the deltas


async def test_an_attribute_observes_is_honoured_and_reading_starts_live() -> None:
    class Reader:
        def __init__(self) -> None:
            self.types: list[str] = []
            self.wanted = {"turn_end"}

        def observes(self, t: str) -> bool:
            return t in self.wanted

        def __call__(self, ev: Any) -> None:
            self.types.append(ev.type)
            if ev.type == "tool_execution_end":
                self.wanted.add("message_update")  # from now on the reply streams

    agent, _ = _agent([call("echo", {"text": "hi"}), say("done")])
    r = Reader()
    unsubscribe = agent.subscribe(r)
    await agent.prompt("go")
    assert r.types.count("turn_end") == 2 and "turn_start" not in r.types and "agent_end" not in r.types
    assert r.types.index("message_update") > r.types.index("tool_execution_end")  # only the second reply streamed
    unsubscribe()
    assert not agent.observes("turn_end") and not agent.observes("message_update")


async def test_without_listeners_nothing_optional_is_built() -> None:
    agent, provider = _agent([say("done")])
    assert not agent.observes("message_update") and not agent.observes("agent_start")
    new = await agent.prompt("go")
    assert new[-1].text == "done" and provider.consumed == 1  # type: ignore[attr-defined]


def _no_time(d: Any) -> Any:
    return {k: v for k, v in d.items() if k != "timestamp"}


async def test_a_provider_stream_without_final_sends_no_unread_deltas() -> None:
    class Factory:  # a factory step plays on the provider's async path, which has no final()
        def __call__(self, context: Any) -> Any:
            return say("streamed the long way round")

    agent, _ = _agent([Factory()])
    seen: list[str] = []
    agent.subscribe(lambda ev: seen.append(ev.type), observes=lambda t: t.startswith("message_"))
    await agent.prompt("go")
    assert "message_update" in seen
    agent2, _ = _agent([Factory()])
    quiet: list[str] = []
    agent2.subscribe(lambda ev: quiet.append(ev.type), observes=lambda t: t == "message_end")
    new = await agent2.prompt("go")
    assert "message_update" not in quiet and new[-1].text == "streamed the long way round"  # type: ignore[attr-defined]
