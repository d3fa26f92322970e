"""A compiled tool-using scenario plays in-process: Agent + ScriptedProvider + real tools on a tmp dir.

Checks (`assert` steps) run before the reply they precede, as a harness does it: the step is
wrapped in a factory that evaluates the checks on the workspace and the transcript first.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from scenario_paths import EXAMPLES

from autocue.agent import Agent, AgentTool
from autocue.llm import Context, ToolResultMessage
from autocue.scenario import AssertReport, AssertSpec, apply_profile, evaluate_assert, get_profile, load_scenario_text
from autocue.script import Check, ScriptedProvider, ScriptedResponse, Step, scripted_model


def workspace_tools(root: Path) -> list[AgentTool]:
    """Minimal read/write/bash tools with pi's names and argument names."""

    async def read(_id: str, p: dict[str, Any], _s: Any, _u: Any) -> str:
        return (root / p["path"]).read_text()

    async def write(_id: str, p: dict[str, Any], _s: Any, _u: Any) -> str:
        target = root / p["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(p["content"])
        return f"wrote {len(p['content'])} bytes to {p['path']}"

    async def bash(_id: str, p: dict[str, Any], _s: Any, _u: Any) -> str:
        r = await asyncio.to_thread(
            subprocess.run, p["command"], shell=True, cwd=root, capture_output=True, text=True, timeout=60
        )
        if r.returncode != 0:
            raise RuntimeError(f"exit {r.returncode}: {r.stderr}")
        return r.stdout

    def obj(props: dict[str, Any], req: list[str]) -> dict[str, Any]:
        return {"type": "object", "properties": props, "required": req}

    s = {"type": "string"}
    return [
        AgentTool("read", "read a file", obj({"path": s, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
                                              ["path"]), read),
        AgentTool("write", "write a file", obj({"path": s, "content": s}, ["path", "content"]), write),
        AgentTool("bash", "run a command", obj({"command": s, "timeout": {"type": "number"}}, ["command"]), bash),
    ]


def transcript(agent: Agent) -> str:
    return "\n".join(m.text for m in agent.state.messages if isinstance(m, ToolResultMessage))


def with_checks(steps: list[Step], checks: list[Check], run: Any) -> list[Step]:
    """Steps where each step preceded by checks first runs them (``run(check)``)."""
    out: list[Step] = []
    for i, step in enumerate(steps):
        due = [c for c in checks if c.before_step == i]
        if due:
            def gated(ctx: Context, step: Step = step, due: list[Check] = due) -> ScriptedResponse:
                for c in due:
                    run(c)
                assert isinstance(step, ScriptedResponse)
                return step

            out.append(gated)
        else:
            out.append(step)
    return out


async def play(text: str, root: Path) -> tuple[Agent, ScriptedProvider, list[AssertReport]]:
    sc = load_scenario_text(text, "tool_use.yaml")
    assert sc.repo is not None
    for f in sc.repo.files:
        (root / f.path).write_text(f.contents if isinstance(f.contents, str) else f.contents.decode())
    script = apply_profile(sc.compile(), get_profile("autocue"))
    provider = ScriptedProvider()
    agent = Agent(provider=provider, model=scripted_model(), tools=workspace_tools(root))
    reports: list[AssertReport] = []

    def run(c: Check) -> None:
        assert isinstance(c.spec, AssertSpec)
        reports.append(evaluate_assert(c.spec, root, text=transcript(agent)))

    for turn in script.turns:
        provider.extend(with_checks(turn.steps, turn.checks, run))
        assert turn.prompt is not None
        await agent.prompt(turn.prompt)
        for c in turn.checks:
            if c.before_step == len(turn.steps):
                run(c)
    return agent, provider, reports


async def test_tool_use_example_runs_in_process(tmp_path: Path) -> None:
    text = (EXAMPLES / "tool_use.yaml").read_text()
    agent, provider, reports = await play(text, tmp_path)

    assert provider.remaining == 0 and provider.exhausted == [] and provider.consumed == 4
    assert (tmp_path / "hello.py").read_text() == "print('Hello, World!')\n"
    msgs = agent.state.messages
    assert [m.role for m in msgs] == [
        "user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult", "assistant"]
    results = [m for m in msgs if isinstance(m, ToolResultMessage)]
    assert [(r.tool_name, r.tool_call_id, r.is_error) for r in results] == [
        ("read", "call_read_readme", False), ("write", "call_write_hello", False), ("bash", "call_run_hello", False)]
    assert [r.text for r in results] == ["# Demo project\n", "wrote 23 bytes to hello.py", "Hello, World!\n"]
    assert msgs[-1].text == "Done: hello.py prints Hello, World!"  # type: ignore[union-attr]
    assert [(r.passed, r.source, len(r.results)) for r in reports] == [
        (True, "tool_use.yaml:35", 2), (True, "tool_use.yaml:44", 1)]


async def test_a_failing_assertion_is_reported_with_its_position(tmp_path: Path) -> None:
    text = (EXAMPLES / "tool_use.yaml").read_text().replace("path: hello.py\n", "path: hallo.py\n")
    _, _, reports = await play(text, tmp_path)
    first = reports[0]
    assert not first.passed
    assert first.message() == (
        "1 of 2 scenario assertion(s) failed at tool_use.yaml:35:\n"
        f"  - fs.exists hello.py: expected 'exists', got 'missing' (in workspace {tmp_path})"
    )
    # the run went on: python3 hello.py failed, so the transcript check fails too
    assert not reports[1].passed


async def test_rate_limit_example_plays_429_then_the_answer() -> None:
    from autocue.llm import StreamOptions, UserMessage
    from autocue.scenario import load_scenario

    script = load_scenario(EXAMPLES / "rate_limit_retry.yaml").compile()
    provider = ScriptedProvider(script.turns[0].steps)
    ctx = Context(None, [UserMessage(script.turns[0].prompt or "")])
    first = await provider.stream(scripted_model(), ctx, StreamOptions()).result()
    assert (first.stop_reason, first.error_status, first.retry_after) == ("error", 429, 0.1)
    assert first.error_message == "429 rate_limit_error: Rate limited: please slow down"
    second = await provider.stream(scripted_model(), ctx, StreamOptions()).result()
    assert (second.stop_reason, second.text) == ("stop", "Hello!")


async def test_thinking_example_plays_two_turns_with_thinking() -> None:
    from autocue.llm import AssistantMessage, ThinkingContent
    from autocue.scenario import load_scenario

    script = load_scenario(EXAMPLES / "thinking_text.yaml").compile()
    provider = ScriptedProvider()
    agent = Agent(provider=provider, model=scripted_model())
    for turn in script.turns:
        provider.extend(turn.steps)
        await agent.prompt(turn.prompt or "")
    replies = [m for m in agent.state.messages if isinstance(m, AssistantMessage)]
    assert [[b.thinking for b in r.content if isinstance(b, ThinkingContent)] for r in replies] == [
        ["6 times 7: 6*7 = 42.", "Double-check: 7+7+7+7+7+7 = 42."], ["42 * 2 = 84."]]
    assert [r.text for r in replies] == ["6 times 7 is 42.", "Twice that is 84."]
    assert [m.role for m in agent.state.messages] == ["user", "assistant", "user", "assistant"]
