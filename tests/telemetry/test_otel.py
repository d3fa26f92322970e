"""OpenTelemetry out (docs/telemetry.md): the spans reach a real OTLP/HTTP receiver as one trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import openai
import pytest
from otel_collector import Collector, Receiver, Span

from autocue import telemetry
from autocue.errors import MissingExtraError
from autocue.mockllm.otel import session_id
from autocue.mockllm.server import MockLLMServer

SCENARIO = """\
name: otel_demo
initialPrompt: "Read the README."
timeline:
  - llmResponse:
      - assistant: [[0, "Reading it."]]
      - agentToolUse:
          toolName: read
          toolCallId: call_readme
          args: {path: README.md}
  - llmResponse:
      - assistant: [[0, "Done."]]
  - complete: true
"""
CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"


@pytest.fixture
def collector() -> Iterator[Collector]:
    with Receiver() as c:
        yield c
    telemetry.shutdown()


def _chat(client: openai.OpenAI, messages: list[dict[str, object]], **kw: object) -> object:
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}}}}}]
    return client.chat.completions.create(model="gpt-test", messages=messages, tools=tools, **kw)  # type: ignore[arg-type,call-overload]


def test_the_server_spans_join_the_clients_trace_and_a_tool_call_spans_until_its_result(
        tmp_path: Path, collector: Collector) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    telemetry.configure(endpoint=collector.url, service="autocue-test")
    with MockLLMServer(tmp_path / "s.yaml") as server:
        client = openai.OpenAI(base_url=server.url_for(openai=True), api_key="sk-secret-key", max_retries=0)
        traceparent = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
        first = _chat(client, [{"role": "user", "content": "Read the README."}],
                      extra_headers={"traceparent": traceparent})
        call = first.choices[0].message.tool_calls[0]
        _chat(client, [{"role": "user", "content": "Read the README."},
                       {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                       {"role": "tool", "tool_call_id": call.id, "content": "# Demo"}],
              extra_headers={"traceparent": traceparent}, stream=True)
        client.embeddings.create(model="emb-test", input=["a"])
    telemetry.shutdown()

    chats = collector.named("chat ")
    assert [s.name for s in chats] == ["chat gpt-test", "chat gpt-test"]
    one, two = chats
    for s in chats:  # the client's span is the parent: one trace with the agent's own spans
        assert (s.trace_id, s.parent_id, s.kind, s.service) == (CLIENT_TRACE, CLIENT_SPAN, 2, "autocue-test")
    a = one.attributes
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == a["gen_ai.response.model"] == "gpt-test"
    assert a["gen_ai.response.finish_reasons"] == ["tool_call"]
    assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
    assert a["autocue.api"] == "chat" and a["autocue.stream"] is False and a["autocue.step"] == 0
    assert a["gen_ai.conversation.id"] == session_id("sk-secret-key")  # the key itself is never exported
    assert "sk-secret-key" not in json.dumps([s.attributes for s in collector.spans])
    assert a["gen_ai.response.id"] == first.id or a["gen_ai.response.id"].startswith("req_")
    assert a["server.address"] == "127.0.0.1" and a["server.port"] == server.port
    assert two.attributes["autocue.stream"] is True and two.attributes["gen_ai.response.finish_reasons"] == ["stop"]
    tool, = collector.named("execute_tool ")
    assert tool.name == "execute_tool read" and tool.parent_id == one.span_id and tool.trace_id == CLIENT_TRACE
    assert tool.attributes["gen_ai.tool.call.id"] == call.id == "call_readme"
    assert tool.attributes["gen_ai.tool.name"] == "read" and tool.attributes["autocue.tool.answered"] is True
    assert tool.attributes["autocue.tool.is_error"] is False and tool.status != 2
    assert one.end <= tool.start + 1 and tool.end <= two.end  # from the reply with the call to its result
    emb, = collector.named("embeddings ")
    assert emb.name == "embeddings emb-test" and emb.trace_id != CLIENT_TRACE  # no traceparent: a trace of its own
    assert emb.parent_id == ""



def test_a_responses_websocket_turn_has_its_spans_too(tmp_path: Path, collector: Collector) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    telemetry.configure(endpoint=collector.url)
    tools = [{"type": "function", "name": "read", "parameters": {"type": "object", "properties": {}}}]
    with MockLLMServer(tmp_path / "s.yaml") as server:
        client = openai.OpenAI(base_url=server.url_for(openai=True), api_key="k", max_retries=0)
        with client.responses.connect(extra_headers={"traceparent": f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"}) as conn:
            conn.response.create(model="m-ws", input="go", tools=tools)  # type: ignore[arg-type]
            done = next(e for e in conn if e.type == "response.completed").response
            call = next(o for o in done.output if o.type == "function_call")
            conn.response.create(model="m-ws", previous_response_id=done.id, tools=tools,  # type: ignore[arg-type]
                                 input=[{"type": "function_call_output", "call_id": call.call_id, "output": "ok"}])
            next(e for e in conn if e.type == "response.completed")
    telemetry.shutdown()
    chats = collector.named("chat m-ws")
    assert [(c.attributes["autocue.transport"], c.attributes["autocue.api"]) for c in chats] == [
        ("websocket", "responses")] * 2
    assert {(c.trace_id, c.parent_id) for c in chats} == {(CLIENT_TRACE, CLIENT_SPAN)}  # the handshake's traceparent
    tool, = collector.named("execute_tool ")
    assert tool.parent_id == chats[0].span_id and tool.attributes["gen_ai.tool.call.id"] == call.call_id

def test_a_scripted_error_is_an_error_span_and_a_failed_tool_result_an_error_tool_span(
        tmp_path: Path, collector: Collector) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("      - assistant: [[0, \"Done.\"]]",
                                                      "      - error: {statusCode: 429, message: slow}"))
    telemetry.configure(endpoint=collector.url)
    tools = [{"name": "read", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    with MockLLMServer(tmp_path / "s.yaml") as server:
        client = anthropic.Anthropic(base_url=server.url_for(), api_key="k", max_retries=0)
        ask = [{"role": "user", "content": "go"}]
        first = client.messages.create(model="claude-test", max_tokens=100, messages=ask, tools=tools)  # type: ignore[arg-type]
        use = next(b for b in first.content if b.type == "tool_use")
        with pytest.raises(anthropic.RateLimitError):
            client.messages.create(model="claude-test", max_tokens=100, tools=tools, messages=[  # type: ignore[arg-type]
                *ask, {"role": "assistant", "content": [b.model_dump() for b in first.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "is_error": True,
                                              "content": "no such file"}]}])
    telemetry.shutdown()
    ok, failed = collector.named("chat ")
    assert ok.status != 2 and ok.attributes["gen_ai.provider.name"] == "anthropic"
    assert failed.status == 2 and failed.attributes["error.type"] == "429"
    assert failed.attributes["http.response.status_code"] == 429 and failed.attributes["autocue.error.reason"]
    tool, = collector.named("execute_tool ")
    assert tool.attributes["gen_ai.tool.call.id"] == use.id and tool.parent_id == ok.span_id
    assert tool.attributes["autocue.tool.is_error"] is True and tool.status == 2
    assert tool.attributes["error.type"] == "tool_error"


def test_a_tool_call_without_a_result_is_exported_unanswered_at_shutdown(tmp_path: Path, collector: Collector) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    telemetry.configure(endpoint=collector.url)
    with MockLLMServer(tmp_path / "s.yaml") as server:
        client = openai.OpenAI(base_url=server.url_for(openai=True), api_key="k", max_retries=0)
        _chat(client, [{"role": "user", "content": "go"}])
    assert not collector.named("execute_tool")
    telemetry.shutdown()
    tool, = collector.named("execute_tool ")
    assert tool.attributes["autocue.tool.answered"] is False


def _cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd)


def test_autocue_serve_otel_file_writes_the_sdks_span_json_one_a_line(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    out = tmp_path / "spans.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "autocue", "serve", str(tmp_path / "s.yaml"), "--json",
                             "--otel-file", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        r = httpx.post(url + "/v1/chat/completions", json={"model": "m1", "messages": [
            {"role": "user", "content": "hi"}]}, headers={"traceparent": f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"})
        assert r.status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    spans = [json.loads(line) for line in out.read_text().splitlines()]
    chat, = [s for s in spans if s["name"] == "chat m1"]
    assert chat["context"]["trace_id"] == "0x" + CLIENT_TRACE and chat["parent_id"] == "0x" + CLIENT_SPAN
    assert chat["kind"] == "SpanKind.SERVER" and chat["attributes"]["gen_ai.response.finish_reasons"] == ["tool_call"]
    assert chat["resource"]["attributes"]["service.name"] == "autocue-serve"


AGENT = """\
import json, os, sys, urllib.request
Path = sys.argv[2] + "/chat/completions"
def ask(messages):
    req = urllib.request.Request(Path, json.dumps({"model": "m-cmd", "messages": messages}).encode(),
                                 {"content-type": "application/json", "traceparent": os.environ["TRACEPARENT"]})
    return json.loads(urllib.request.urlopen(req).read())["choices"][0]["message"]
first = ask([{"role": "user", "content": "go"}])
call = first["tool_calls"][0]
ask([{"role": "user", "content": "go"}, first, {"role": "tool", "tool_call_id": call["id"], "content": "ok"}])
open(sys.argv[1], "w").write(os.environ["TRACEPARENT"])
"""


def _tree(collector: Collector) -> tuple[Span, list[Span], list[Span]]:
    """The run span, its request spans and their tool spans, checked to be one trace."""
    runs = collector.named("invoke_agent")
    assert len(runs) == 1, [s.name for s in collector.spans]
    run = runs[0]
    assert {s.trace_id for s in collector.spans} == {run.trace_id}  # one trace
    return run, collector.named("chat "), collector.named("execute_tool ")


def test_autocue_run_otel_puts_the_runs_requests_and_tool_calls_under_the_scenario_span(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("toolName: read", "toolName: readFile")
                                     + "expect:\n  exitCode: 0\n")
    (tmp_path / "agent.py").write_text(AGENT)
    with Receiver() as collector:
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}
        cmd = f"{sys.executable} {tmp_path / 'agent.py'} {tmp_path / 'traceparent.txt'} {{openai_base_url}}"
        proc = _cli("run", str(tmp_path / "s.yaml"), "--cmd", cmd, "--out", str(tmp_path / "runs"), env=env,
                    cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        run, chats, tools = _tree(collector)
    assert run.name == "invoke_agent cmd" and run.attributes["autocue.run.result"] == "passed"
    assert run.attributes["autocue.scenario.name"] == "otel_demo" and run.service == "autocue-run"
    # the agent got TRACEPARENT naming the run's span, and sent it: its requests are the run's children
    assert (tmp_path / "traceparent.txt").read_text().split("-")[1:3] == [run.trace_id, run.span_id]
    assert len(chats) == 2 and all(c.parent_id == run.span_id for c in chats)
    tool, = tools
    assert tool.parent_id == chats[0].span_id and tool.attributes["gen_ai.tool.call.id"] == "call_readme"


def test_autocue_run_binds_an_agent_that_sends_no_traceparent_and_records_a_failed_run(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("toolName: read", "toolName: readFile")
                                     + "  - assert:\n      fs:\n        exists: [missing.txt]\n")
    with Receiver() as collector:
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}
        proc = _cli("run", str(tmp_path / "s.yaml"), "--agent", "autocue", "--out", str(tmp_path / "runs"),
                    env=env, cwd=tmp_path)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        run, chats, tools = _tree(collector)
    assert run.name == "invoke_agent autocue" and run.status == 2
    assert run.attributes["autocue.run.result"] == "failed" and run.attributes["autocue.run.failures"] >= 1
    assert any("missing.txt" in m for m in run.attributes["autocue.run.failure_messages"])
    assert len(chats) >= 2 and all(c.parent_id == run.span_id for c in chats)
    assert [t.parent_id for t in tools] == [chats[0].span_id]
    assert tools[0].attributes["gen_ai.tool.call.id"] == "call_readme"


def test_otel_without_the_sdk_names_the_extra(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys, runpy
        sys.modules["opentelemetry"] = None
        sys.argv = ["autocue", "serve", "--otel"]
        runpy.run_module("autocue", run_name="__main__")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("autocue serve: OpenTelemetry export (--otel) needs the 'opentelemetry' package, "
                                   "which is not installed: pip install 'autocue[otel]'")
    with pytest.MonkeyPatch.context() as mp:  # in process too: the error names the extra, telemetry stays off
        mp.setitem(sys.modules, "opentelemetry", None)
        with pytest.raises(MissingExtraError) as e:
            telemetry.configure()
    assert e.value.extra == "otel" and telemetry.TRACER is None


def test_with_telemetry_off_nothing_of_opentelemetry_is_imported() -> None:
    code = ("import sys, autocue.cli.serve, autocue.cli.run, autocue.mockllm.app, autocue.runner.executor, "
            "autocue.testing; print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.stdout.strip() == "[]", proc.stderr


HARNESS_TESTS = '''
from autocue.testing import call, say, when


def test_two_turns(autocue_session):
    t = autocue_session(mock_tools={"bash": "ok"})
    t.run_sync(when("List files", [call("bash", {"command": "ls"}), say("Done.")]),
               when("Again", [say("Still done.")]))


def test_no_session():
    pass
'''


def test_the_pytest_option_exports_a_span_per_test_session(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(HARNESS_TESTS)
    with Receiver() as collector:
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                               "--autocue-otel", "test_child.py"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    span, = collector.spans
    assert span.name == "invoke_agent autocue" and span.service == "autocue-pytest"
    assert span.attributes["autocue.test"] == "test_child.py::test_two_turns"
    assert span.attributes["autocue.session.turns"] == 2 and span.attributes["autocue.session.tool_failures"] == 0


def test_autocue_run_otel_file_with_the_mock_agent_writes_the_run_span(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO.replace("toolName: read", "toolName: readFile"))
    out = tmp_path / "spans.jsonl"
    proc = _cli("run", str(tmp_path / "s.yaml"), "--agent", "mock", "--otel-file", str(out), "--out",
                str(tmp_path / "runs"), cwd=tmp_path, env={k: v for k, v in os.environ.items()
                                                           if not k.startswith("OTEL_")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run, = [json.loads(line) for line in out.read_text().splitlines()]  # the mock agent plays its replies itself
    assert run["name"] == "invoke_agent mock" and run["parent_id"] is None
    assert run["attributes"]["autocue.run.result"] == "passed" and run["attributes"]["autocue.run.failures"] == 0
    assert run["resource"]["attributes"]["service.name"] == "autocue-run"


def test_an_otel_file_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    proc = _cli("serve", "--otel-file", str(tmp_path / "no" / "spans.jsonl"))
    assert proc.returncode == 2
    assert proc.stderr == f"autocue serve: --otel-file {tmp_path / 'no' / 'spans.jsonl'}: No such file or directory\n"
