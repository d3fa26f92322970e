"""Requests shaped as real agents send them: Codex's Responses "lite" request (tools inside an
``additional_tools`` input item), and scripted calls of tools a request does not declare
(a warning in the session status and the server log, even without ``--strict-tools``)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from mockllm_helpers import call, say

from autocue.llm.types import TextContent
from autocue.mockllm import serve
from autocue.script import Script, ScriptedResponse, Turn

EXEC_DESCRIPTION = (
    "Run JavaScript code to orchestrate/compose tool calls\n"
    "### `exec_command`\nRuns a command in a PTY.\n\nexec tool declaration:\n```ts\n"
    "declare const tools: { exec_command(args: {\n  cmd: string;\n}): Promise<unknown>; };\n```\n"
    "### `apply_patch`\nexec tool declaration:\n```ts\n"
    "declare const tools: { apply_patch(input: string): Promise<unknown>; };\n```\n"
)


def codex_lite_body(prompt: str) -> dict[str, Any]:
    """The shape Codex 0.169 sends without ``-c model=...`` (trimmed): no top-level ``tools``."""
    return {
        "model": "gpt-6.1-sol", "stream": False, "store": False, "tool_choice": "auto",
        "input": [
            {"type": "additional_tools", "id": "at_1", "role": "developer", "tools": [
                {"type": "namespace", "name": "functions", "description": "", "tools": [
                    {"type": "custom", "name": "exec", "description": EXEC_DESCRIPTION,
                     "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[\\s\\S]+/"}},
                    {"type": "function", "name": "wait", "parameters": {"type": "object", "properties": {}}},
                ]},
                {"type": "namespace", "name": "collaboration", "description": "", "tools": [
                    {"type": "function", "name": "spawn_agent", "parameters": {"type": "object", "properties": {}}},
                ]},
            ]},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be careful"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]},
        ],
    }


LITE_HEADERS = {"x-openai-internal-codex-responses-lite": "true", "originator": "codex_exec"}


def write_script() -> Script:
    return Script([Turn("create hello.txt", [
        ScriptedResponse([TextContent("Writing."), call("writeFile", {"path": "hello.txt", "content": "hi\n"})]),
        say("Done."),
    ])], name="write")


@pytest.mark.parametrize("strict", [False, True])
def test_codex_lite_request_selects_codex_and_reads_its_tools(strict: bool) -> None:
    with serve(write_script(), strict_tools=strict) as server:
        r = httpx2.post(server.openai_base_url + "/responses", json=codex_lite_body("create hello.txt"),
                        headers={**LITE_HEADERS, "authorization": "Bearer lite-1"})
        assert r.status_code == 200, r.text
        calls = [o for o in r.json()["output"] if o["type"] == "function_call"]
        assert [c["name"] for c in calls] == ["exec_command"]
        assert "hello.txt" in json.loads(calls[0]["arguments"])["cmd"]
        status = server.session("lite-1")
    assert (status["profile"], status["profile_source"]) == ("codex", "detected (Codex lite request)")
    assert status["warnings"] == [] and status["errors"] == []


def test_codex_lite_shape_without_the_header_is_detected_too() -> None:
    with serve(write_script()) as server:
        r = httpx2.post(server.openai_base_url + "/responses", json=codex_lite_body("create hello.txt"),
                        headers={"authorization": "Bearer lite-2"})
        assert r.status_code == 200, r.text
        assert server.session("lite-2")["profile"] == "codex"


def test_undeclared_tool_call_is_a_session_warning_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    script = Script([Turn("deploy it", [
        ScriptedResponse([call("deploy", {"env": "prod"}), call("bash", {"command": "ls"})]),
        ScriptedResponse([call("bash", {"command": "ls"})]),
        say("Deployed."),
    ])], name="deploy")
    tools: Any = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    caplog.set_level(logging.WARNING, logger="autocue.mockllm")
    with serve(script) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="dep-1")
        msgs: Any = [{"role": "user", "content": "deploy it"}]
        first = c.chat.completions.create(model="m", messages=msgs, tools=tools)
        assert [t.function.name for t in first.choices[0].message.tool_calls or []] == ["deploy", "bash"]
        c.chat.completions.create(model="m", messages=msgs, tools=tools)  # bash only: declared, no warning
        c.chat.completions.create(model="m", messages=msgs)  # no tools, no call: no warning
        status = server.session("dep-1")
    [warning] = status["warnings"]
    assert "reply 1 of scenario 'deploy' calls deploy" in warning
    assert "does not declare (declared: bash)" in warning and "--strict-tools" in warning
    assert status["errors"] == [] and status["remaining"] == 0
    assert [r.getMessage() for r in caplog.records if r.name == "autocue.mockllm"] == [
        f"autocue mock LLM: warning: session 'dep-1': {warning}"]


def test_call_when_the_request_declares_no_tools_is_a_warning() -> None:
    with serve(Script([Turn("go", [ScriptedResponse([call("bash", {"command": "ls"})]), say("ok")])])) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="none-1")
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
        [warning] = server.session("none-1")["warnings"]
    assert "calls bash, which this OpenAI Chat Completions request does not declare (declared: no tools)" in warning


@pytest.mark.slow
def test_autocue_serve_prints_the_warning_on_stderr(tmp_path: Path) -> None:
    scenario = tmp_path / "deploy.yaml"
    scenario.write_text("name: deploy\ntimeline:\n  - llmResponse:\n      - runCmd: {cmd: make deploy}\n")
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "serve", str(scenario), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        r = httpx2.post(url + "/v1/messages", headers={"x-api-key": "srv-1"},
                        json={"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "go"}],
                              "tools": [{"name": "Read", "input_schema": {"type": "object"}}]})
        assert r.status_code == 200 and r.json()["content"][0]["name"] == "Bash"  # claude-code profile
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "autocue mock LLM: warning: session 'srv-1': reply 1 of scenario 'deploy' calls Bash" in err, err


def test_a_call_goes_out_under_the_declared_spelling_the_loader_rewrote() -> None:
    """A scenario's ``write_file`` is loaded as ``writeFile``; a request declaring ``write_file`` gets
    its call by that name (no profile maps it), not an undeclared ``writeFile``."""
    from autocue.scenario import load_scenario_text

    scenario = load_scenario_text("name: w\ntimeline:\n  - llmResponse:\n      - agentToolUse: {toolName: write_file, "
                                  "args: {path: a.txt, content: x}}\n", "w.yaml")
    tools: Any = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                  for n in ("get_weather", "write_file")]
    with serve(scenario) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="spell-1")
        reply = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], tools=tools)
        status = server.session("spell-1")
    [tc] = reply.choices[0].message.tool_calls or []
    assert (tc.function.name, json.loads(tc.function.arguments)) == ("write_file", {"path": "a.txt", "content": "x"})
    assert status["warnings"] == [] and status["profile"] is None
