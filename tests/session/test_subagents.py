"""Subagents: the ``task`` tool, agent types, child sessions, structured output, limits, abort."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from session_helpers import call, echo, make_session, record, say, settings

from autocue.agent import AgentTool
from autocue.agent.tool import ToolResult
from autocue.llm.types import Context
from autocue.script import ScriptedProvider, ScriptedResponse
from autocue.session import AgentSession, SessionManager
from autocue.session.subagent_types import AgentType, load_agent_types
from autocue.tools import BUILTIN_TOOL_NAMES, create_builtin_tools


def children(s: AgentSession, scripts: dict[str, list[Any]]) -> dict[str, ScriptedProvider]:
    """One scripted provider per task id (the seam a harness uses)."""
    providers = {tid: ScriptedProvider(steps) for tid, steps in scripts.items()}
    assert s.subagents is not None
    s.subagents.provider_for = lambda tid, _t: providers[tid]
    return providers


def task_args(agent: str, *ids: str, **extra: Any) -> dict[str, Any]:
    return {"agent": agent, "tasks": [{"id": i, "description": f"do {i}", "assignment": f"work on {i}"} for i in ids],
            **extra}


def results(events: list[Any], name: str = "task") -> list[Any]:
    return [e for e in events if e.type == "tool_execution_end" and e.tool_name == name]


async def test_task_runs_an_explore_child_with_its_tools_and_returns_its_output(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    builtins = list(create_builtin_tools(tmp_path, BUILTIN_TOOL_NAMES).values())
    s, _ = make_session([call("task", task_args("explore", "t1")), say("parent done")],
                        session_manager=sm, cwd=tmp_path, tools=builtins, subagents=True)
    seen: list[list[str]] = []

    def child_reply(ctx: Context) -> ScriptedResponse:
        seen.append([t.name for t in ctx.tools])
        assert ctx.system_prompt.startswith("You are a scout.")
        assert "work on t1" in str(ctx.messages[0].content)
        return say("found it in src/x.py")

    children(s, {"t1": [child_reply]})
    ev = record(s)
    await s.prompt("explore")
    (end,) = results(ev)
    assert end.is_error is False
    assert "## t1 (explore): done" in end.result.text_content and "found it in src/x.py" in end.result.text_content
    assert seen == [["read", "find", "grep"]]
    child_file = end.result.details["results"][0]["sessionFile"]
    header = json.loads(Path(child_file).read_text().splitlines()[0])
    assert header["parentSession"] == s.session_file and Path(child_file).parent == Path(s.session_file).parent
    assert any(e.type == "tool_execution_update" and e.tool_name == "task" for e in ev)
    await s.dispose()


async def test_a_child_without_a_reply_fails_the_task_naming_the_problem() -> None:
    s, _ = make_session([call("task", task_args("task", "a")), say("ok")], subagents=True)
    children(s, {"a": []})
    ev = record(s)
    await s.prompt("go")
    (end,) = results(ev)
    assert end.is_error and "## a (task): error" in end.result.text_content
    assert "No more scripted responses" in end.result.text_content


async def test_builder_children_get_every_parent_tool_but_task() -> None:
    s, _ = make_session([call("task", task_args("builder", "b")), say("ok")], tools=[echo], subagents=True)
    p = children(s, {"b": [call("echo", {"text": "x"}), say("built")]})
    ev = record(s)
    await s.prompt("go")
    assert not results(ev)[0].is_error and p["b"].remaining == 0
    assert "built" in results(ev)[0].result.text_content


@pytest.mark.parametrize("limit", [1, 3])
async def test_tasks_run_in_parallel_up_to_the_limit(limit: int) -> None:
    st = settings()
    st.extra["task"] = {"maxConcurrency": limit}
    s, _ = make_session([call("task", task_args("task", "a", "b", "c")), say("ok")], settings_=st, subagents=True)
    running = [0]
    peak = [0]

    async def slow(ctx: Context) -> ScriptedResponse:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.01)
        running[0] -= 1
        return say("done")

    children(s, {"a": [slow], "b": [slow], "c": [slow]})
    await s.prompt("go")
    assert peak[0] == limit


@pytest.mark.parametrize("replies, ok, needle", [
    ([call("submit_result", {"result": {"n": 1}})], True, '"n": 1'),
    ([call("submit_result", {"result": {"n": "x"}}), call("submit_result", {"result": {"n": 2}})], True, '"n": 2'),
    ([call("submit_result", {"result": {}}), call("submit_result", {"result": {"n": "y"}})], False, "rejected"),
    ([say("no result")] * 2, False, "without calling submit_result"),
])
async def test_structured_output_is_validated_with_one_retry(replies: list[Any], ok: bool, needle: str) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    s, _ = make_session([call("task", task_args("task", "r", schema=schema)), say("ok")], subagents=True)
    prompts: list[str] = []
    p = children(s, {"r": replies})
    assert s.subagents is not None
    s.subagents.on_child.append(lambda tid, c: c.session.subscribe(
        lambda e: prompts.append(str(e.message.content)) if e.type == "message_end" and e.message.role == "user"
        else None))
    ev = record(s)
    await s.prompt("go")
    (end,) = results(ev)
    assert end.is_error is (not ok) and needle in end.result.text_content
    assert p["r"].remaining == 0
    if len(replies) == 2:
        assert len(prompts) == 2 and "not accepted" in prompts[1]
    if ok:
        assert end.result.details["results"][0]["result"]["n"] in (1, 2)


async def test_an_abort_of_the_parent_reaches_every_child() -> None:
    started = asyncio.Event()
    aborted: list[str] = []

    async def wait(call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> ToolResult:
        started.set()
        await signal.wait()
        aborted.append(call_id)
        return ToolResult.text("stopped")

    waiter = AgentTool("wait", "waits", {"type": "object", "properties": {}}, wait)
    s, _ = make_session([call("task", task_args("task", "a", "b"))], tools=[waiter], subagents=True)
    children(s, {"a": [call("wait", id="wa")], "b": [call("wait", id="wb")]})
    ev = record(s)
    run = asyncio.ensure_future(s.prompt("go"))
    await started.wait()
    await asyncio.sleep(0.01)
    await s.abort()
    await run
    assert sorted(aborted) == ["wa", "wb"]
    (end,) = results(ev)
    assert end.is_error and end.result.text_content.count(": aborted") == 2


async def test_unknown_agent_type_and_bad_arguments_are_tool_errors() -> None:
    s, _ = make_session([call("task", task_args("nope", "a")), call("task", {"agent": "task", "tasks": [
        {"id": "x", "assignment": "a"}, {"id": "x", "assignment": "b"}]}), say("ok")], subagents=True)
    ev = record(s)
    await s.prompt("go")
    a, b = results(ev)
    assert a.is_error and "unknown agent type 'nope'" in a.result.text_content and "explore" in a.result.text_content
    assert b.is_error and "used twice" in b.result.text_content


def test_user_agent_types_come_from_markdown_files(tmp_path: Path) -> None:
    user, project = tmp_path / "home", tmp_path / "proj"
    (user / "agents").mkdir(parents=True)
    (project / ".autocue" / "agents").mkdir(parents=True)
    (user / "agents" / "sec.md").write_text("---\nname: sec\ndescription: user\ntools: read\n---\nUser prompt\n")
    (project / ".autocue" / "agents" / "sec.md").write_text(
        "---\nname: sec\ndescription: Security review\ntools: [read, grep]\nmodel: autocue/*\n---\nFind holes.\n")
    (project / ".autocue" / "agents" / "bad.md").write_text("---\nname: bad\ncolour: red\n---\nx\n")
    types = load_agent_types(project, user)
    assert types.get("sec") == AgentType("sec", "Security review", ("read", "grep"), "Find holes.", "autocue/*",
                                         str(project / ".autocue" / "agents" / "sec.md"))
    assert "explore" in types.types
    assert len(types.diagnostics) == 1 and "bad.md: unknown front matter key(s) ['colour']" in types.diagnostics[0]


async def test_a_user_type_runs_with_its_prompt_and_a_model_pattern_is_checked(tmp_path: Path) -> None:
    d = tmp_path / ".autocue" / "agents"
    d.mkdir(parents=True)
    (d / "sec.md").write_text("---\ntools: [echo]\nmodel: autocue/play*\n---\nFind holes.\n")
    (d / "other.md").write_text("---\nmodel: openai/gpt-*\n---\nElsewhere.\n")
    s, _ = make_session([call("task", task_args("sec", "a")), call("task", task_args("other", "b")), say("ok")],
                        tools=[echo], cwd=tmp_path, subagents=True, discover_extensions=True)
    prompts: list[str] = []

    def reply(ctx: Context) -> ScriptedResponse:
        prompts.append(ctx.system_prompt)
        return say("none")

    children(s, {"a": [reply]})
    ev = record(s)
    await s.prompt("go")
    a, b = results(ev)
    assert not a.is_error and prompts == ["Find holes."]
    assert b.is_error and "wants model 'openai/gpt-*', which matches none of: autocue/playbook" in b.result.text_content


def test_task_settings_are_checked() -> None:
    from autocue.session import Settings, SettingsError
    from autocue.session.subagents import SubagentConfig

    for bad, msg in (({"mode": "thread"}, "task.mode must be"), ({"maxConcurrency": 0}, "maxConcurrency must be"),
                     ({"colour": 1}, "unknown key(s) ['colour']")):
        with pytest.raises(SettingsError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            SubagentConfig.from_settings(Settings.from_dict({"task": bad}, source="s.json"))


# ---------------------------------------------------------------------------- child process


def _process_session(tmp_path: Path, steps: list[Any], playbooks: dict[str, list[dict[str, Any]]]) -> AgentSession:
    st = settings()
    st.extra["task"] = {"mode": "process", "command": [sys.executable, "-m", "autocue"]}
    sm = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    builtins = list(create_builtin_tools(tmp_path, BUILTIN_TOOL_NAMES).values())
    s, _ = make_session(steps, settings_=st, session_manager=sm, cwd=tmp_path, tools=builtins, subagents=True)
    files = {}
    for tid, replies in playbooks.items():
        files[tid] = tmp_path / f"{tid}.json"
        files[tid].write_text(json.dumps(replies))
    assert s.subagents is not None
    s.subagents.process_args = lambda tid: ["--playbook", str(files[tid])]
    return s


@pytest.mark.slow
async def test_a_child_process_subagent_runs_over_rpc_with_a_linked_session_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
    s = _process_session(
        tmp_path,
        [call("task", task_args("explore", "p1", schema=schema)), say("parent done")],
        {"p1": [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "submit_result", "arguments": {"result": {"answer": 42}}}]},
        ]},
    )
    ev = record(s)
    await s.prompt("go")
    (end,) = results(ev)
    assert end.is_error is False, end.result.text_content
    (res,) = end.result.details["results"]
    assert res["result"] == {"answer": 42}
    lines = [json.loads(x) for x in Path(res["sessionFile"]).read_text().splitlines()]
    assert lines[0]["parentSession"] == s.session_file
    tool_results = [e["message"] for e in lines[1:] if e["type"] == "message" and e["message"]["role"] == "toolResult"]
    assert [m["toolName"] for m in tool_results] == ["read", "submit_result"]
    assert "the answer is 42" in tool_results[0]["content"][0]["text"]
    await s.dispose()


@pytest.mark.slow
async def test_a_child_process_that_fails_is_a_task_error(tmp_path: Path) -> None:
    s = _process_session(tmp_path, [call("task", task_args("task", "p2")), say("ok")],
                         {"p2": [{"error": "model is down", "kind": "error", "status": 400}]})
    ev = record(s)
    await s.prompt("go")
    (end,) = results(ev)
    assert end.is_error and "model is down" in end.result.text_content
    await s.dispose()


@pytest.mark.slow
async def test_an_abort_of_the_parent_stops_a_child_process(tmp_path: Path) -> None:
    s = _process_session(tmp_path, [call("task", task_args("task", "p3"))],
                         {"p3": [{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]}]})
    running = asyncio.Event()
    assert s.subagents is not None
    s.subagents.on_child.append(lambda tid, child: child.listeners.append(
        lambda e: running.set() if e.get("type") == "tool_execution_start" else None))
    ev = record(s)
    run = asyncio.ensure_future(s.prompt("go"))
    await asyncio.wait_for(running.wait(), 30)
    t0 = asyncio.get_running_loop().time()
    await s.abort()
    await asyncio.wait_for(run, 30)
    assert asyncio.get_running_loop().time() - t0 < 10
    (end,) = results(ev)
    assert end.is_error and "## p3 (task): aborted" in end.result.text_content
    await s.dispose()


async def test_a_type_model_pattern_picks_a_model_the_session_knows(tmp_path: Path) -> None:
    from autocue.llm.types import Model

    d = tmp_path / ".autocue" / "agents"
    d.mkdir(parents=True)
    (d / "fast.md").write_text("---\ntools: [echo]\nmodel: acme/fast-*\n---\nBe quick.\n")
    s, _ = make_session([call("task", task_args("fast", "f")), say("ok")], tools=[echo], cwd=tmp_path,
                        subagents=True, discover_extensions=True)
    assert s.subagents is not None
    s.subagents.models = [Model("fast-1", "scripted", "acme")]
    used: list[str] = []

    def reply(ctx: Context) -> ScriptedResponse:
        return say("quick")

    inner = ScriptedProvider([reply])

    class Spy:
        def stream(self, model: Any, context: Any, options: Any) -> Any:
            used.append(f"{model.provider}/{model.id}")
            return inner.stream(model, context, options)

    s.subagents.provider_for = lambda tid, t: Spy()  # type: ignore[assignment, return-value]
    ev = record(s)
    await s.prompt("go")
    assert not results(ev)[0].is_error and used == ["acme/fast-1"]
