"""AWS Bedrock runtime (Converse, ConverseStream, InvokeModel[WithResponseStream], Titan and Cohere
embeddings), judged by boto3's ``bedrock-runtime`` client and Anthropic's ``AnthropicBedrock``."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import boto3
import botocore.config
import botocore.eventstream
import botocore.exceptions
import httpx2
import pytest
from botocore.exceptions import ClientError

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.embeddings import vector
from autocue.mockllm.wire import eventstream
from autocue.scenario import load_scenario_text

SCENARIO = """
name: weather
{server}initialPrompt: what is the weather in Paris?
timeline:
  - llmResponse:
      - think: [[0, "I should look it up."]]
      - assistant: [[0, "Let me check."]]
      - agentToolUse: {{toolName: get_weather, args: {{city: Paris}}}}
  - error: {{statusCode: 429, message: slow down}}
  - llmResponse:
      - assistant: [[0, "It is sunny in Paris."]]
"""
STYLED = SCENARIO.format(server="server: {llmApiStyle: bedrock}\n")
PLAIN = SCENARIO.format(server="")
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
TOOLS = {"tools": [{"toolSpec": {"name": "get_weather", "description": "the weather in a city",
                                 "inputSchema": {"json": SCHEMA}}}]}
ANTHROPIC_TOOLS = [{"name": "get_weather", "description": "the weather in a city", "input_schema": SCHEMA}]


def client(server: MockLLMServer, key: str, retries: int = 0) -> Any:
    cfg = botocore.config.Config(retries={"mode": "standard", "total_max_attempts": retries + 1})
    return boto3.client("bedrock-runtime", endpoint_url=server.base_url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key="any-secret", config=cfg)


@pytest.fixture(params=[STYLED, PLAIN], ids=["llmApiStyle-bedrock", "plain"])
def weather(request: pytest.FixtureRequest) -> Iterator[MockLLMServer]:
    with serve(load_scenario_text(request.param, "weather.yaml")) as s:
        yield s


def converse_events(stream: Any) -> dict[str, Any]:
    """A ConverseStream's events gathered into the message they stream."""
    blocks: dict[int, dict[str, Any]] = {}
    out: dict[str, Any] = {"kinds": []}
    for e in stream:
        (kind, data), = e.items()
        out["kinds"].append(kind)
        i = data.get("contentBlockIndex")
        if kind == "contentBlockStart":
            blocks[i] = {"toolUse": dict(data["start"]["toolUse"], input="")}
        elif kind == "contentBlockDelta":
            d = data["delta"]
            b = blocks.setdefault(i, {})
            if "text" in d:
                b["text"] = b.get("text", "") + d["text"]
            elif "toolUse" in d:
                b["toolUse"]["input"] += d["toolUse"]["input"]
            else:
                rc = b.setdefault("reasoningContent", {"reasoningText": {"text": ""}})["reasoningText"]
                rc["text"] += d["reasoningContent"].get("text", "")
                if "signature" in d["reasoningContent"]:
                    rc["signature"] = d["reasoningContent"]["signature"]
        elif kind in ("messageStop", "metadata"):
            out.update(data)
    for b in blocks.values():
        if "toolUse" in b:
            b["toolUse"]["input"] = json.loads(b["toolUse"]["input"])
    out["content"] = [blocks[i] for i in sorted(blocks)]
    return out


@pytest.mark.surface("POST /model/{modelId}/converse", client="boto3")
@pytest.mark.surface("POST /model/{modelId}/converse-stream", client="boto3")
@pytest.mark.parametrize("streamed", [False, True], ids=["converse", "converse-stream"])
def test_converse_tool_round_trip_thinking_usage_and_a_429_botos_retry_survives(
        weather: MockLLMServer, streamed: bool) -> None:
    c = client(weather, "AKIDWEATHER", retries=2)
    msgs: list[dict[str, Any]] = [{"role": "user", "content": [{"text": "what is the weather in Paris?"}]}]

    def ask() -> dict[str, Any]:
        kw: dict[str, Any] = {"modelId": MODEL, "messages": msgs, "toolConfig": TOOLS, "system": [{"text": "brief"}],
                              "inferenceConfig": {"maxTokens": 512}}
        if not streamed:
            r = c.converse(**kw)
            return {"content": r["output"]["message"]["content"], "stopReason": r["stopReason"], "usage": r["usage"],
                    "metrics": r["metrics"]}
        got = converse_events(c.converse_stream(**kw)["stream"])
        assert got["kinds"][0] == "messageStart" and got["kinds"][-2:] == ["messageStop", "metadata"]
        return got

    first = ask()
    assert first["stopReason"] == "tool_use"
    thinking, text, tool = first["content"]
    assert thinking["reasoningContent"]["reasoningText"]["text"] == "I should look it up."
    assert thinking["reasoningContent"]["reasoningText"]["signature"]
    assert text == {"text": "Let me check."}
    assert tool["toolUse"]["name"] == "get_weather" and tool["toolUse"]["input"] == {"city": "Paris"}
    assert tool["toolUse"]["toolUseId"].startswith("tooluse_")
    u = first["usage"]
    assert u["inputTokens"] > 0 and u["outputTokens"] > 0 and u["totalTokens"] == u["inputTokens"] + u["outputTokens"]
    assert first["metrics"]["latencyMs"] >= 0
    msgs.append({"role": "assistant", "content": first["content"]})
    msgs.append({"role": "user", "content": [{"toolResult": {"toolUseId": tool["toolUse"]["toolUseId"],
                                                             "content": [{"json": {"sky": "clear"}}]}}]})
    second = ask()  # the scripted 429 first: boto3's standard retry asks again
    assert second["content"] == [{"text": "It is sunny in Paris."}] and second["stopReason"] == "end_turn"
    s = weather.session("AKIDWEATHER")  # the SigV4 access key id names the session
    assert (s["consumed"], s["remaining"]) == (3, 0)
    journal = weather.requests("AKIDWEATHER")
    assert [e["status"] for e in journal] == [200, 429, 200] and journal[0]["api"] == "bedrock"
    assert journal[0]["model"] == MODEL and journal[0]["tools"] == ["get_weather"]
    assert journal[0]["headers"]["authorization"] == "<redacted>"
    assert journal[-1]["last"] == {"role": "tool", "text": '{"sky":"clear"}', "toolResult": '{"sky":"clear"}'}


def test_without_retries_the_429_is_a_throttling_exception(weather: MockLLMServer) -> None:
    c = client(weather, "AKIDTHROTTLE")
    msgs: list[dict[str, Any]] = [{"role": "user", "content": [{"text": "hi"}]}]
    c.converse(modelId=MODEL, messages=msgs, toolConfig=TOOLS)
    with pytest.raises(ClientError) as e:
        c.converse(modelId=MODEL, messages=msgs, toolConfig=TOOLS)
    err = e.value.response
    assert err["Error"] == {"Code": "ThrottlingException", "Message": "slow down"}
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 429
    assert type(e.value).__name__ == "ThrottlingException"


def anthropic_body(msgs: list[dict[str, Any]]) -> bytes:
    return json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 512, "tools": ANTHROPIC_TOOLS,
                       "messages": msgs}).encode()


@pytest.mark.surface("POST /model/{modelId}/invoke", client="boto3")
@pytest.mark.surface("POST /model/{modelId}/invoke-with-response-stream", client="boto3")
def test_invoke_model_with_anthropics_body_stream_and_not(weather: MockLLMServer) -> None:
    c = client(weather, "AKIDINVOKE", retries=2)
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "what is the weather in Paris?"}]
    r = c.invoke_model(modelId=MODEL, body=anthropic_body(msgs), contentType="application/json")
    assert r["contentType"] == "application/json"
    msg = json.loads(r["body"].read())
    assert msg["type"] == "message" and msg["stop_reason"] == "tool_use" and msg["model"] == MODEL
    assert [b["type"] for b in msg["content"]] == ["thinking", "text", "tool_use"]
    call = msg["content"][2]
    msgs += [{"role": "assistant", "content": msg["content"]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "sunny"}]}]
    r = c.invoke_model_with_response_stream(modelId=MODEL, body=anthropic_body(msgs))
    events = [json.loads(e["chunk"]["bytes"]) for e in r["body"]]
    types = [e["type"] for e in events]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"] and "ping" not in types
    assert "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta") == "It is sunny in Paris."
    assert events[-1]["amazon-bedrock-invocationMetrics"]["outputTokenCount"] > 0


def test_anthropics_bedrock_client_streams_a_tool_call() -> None:
    with serve(load_scenario_text(STYLED, "weather.yaml")) as server:
        ab = anthropic.AnthropicBedrock(aws_access_key="AKIDSDK", aws_secret_key="s", aws_region="us-east-1",
                                        base_url=server.base_url, max_retries=0)
        with ab.messages.stream(model=MODEL, max_tokens=512, tools=ANTHROPIC_TOOLS,  # type: ignore[arg-type]
                                messages=[{"role": "user", "content": "weather?"}]) as stream:
            reply = stream.get_final_message()
        assert [b.type for b in reply.content] == ["thinking", "text", "tool_use"]
        assert reply.content[2].input == {"city": "Paris"}  # type: ignore[union-attr]
        assert server.session("AKIDSDK")["consumed"] == 1


def test_a_malformed_body_is_a_validation_exception(tools_server: MockLLMServer) -> None:
    c = client(tools_server, "AKIDBAD")
    with pytest.raises(ClientError) as e:
        c.invoke_model(modelId=MODEL, body=json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 5,
                                                       "messages": [{"role": "robot", "content": "x"}]}))
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert "messages[0].role: unknown role 'robot'" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as e:  # botocore checks types, not enum values: the server does
        c.converse(modelId=MODEL, messages=[{"role": "robot", "content": [{"text": "x"}]}])
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert "messages[0].role: unknown role 'robot'" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as e:
        c.invoke_model(modelId=MODEL, body=b"{not json")
    assert e.value.response["Error"]["Code"] == "ValidationException"
    r = httpx2.post(tools_server.base_url + "/model/m/no-such-action", json={})
    assert (r.status_code, r.headers["x-amzn-errortype"]) == (404, "ResourceNotFoundException")
    assert r.json() == {"message": "POST /model/m/no-such-action is not an endpoint of the autocue mock LLM server"}


def test_titan_and_cohere_embeddings(tools_server: MockLLMServer) -> None:
    c = client(tools_server, "AKIDEMB")
    r = json.loads(c.invoke_model(modelId="amazon.titan-embed-text-v2:0", body=json.dumps(
        {"inputText": "the cat sat", "dimensions": 256, "normalize": True}))["body"].read())
    assert r["embedding"] == vector("the cat sat", 256) and r["inputTextTokenCount"] > 0
    r = json.loads(c.invoke_model(modelId="amazon.titan-embed-text-v2:0",
                                  body=json.dumps({"inputText": "x"}))["body"].read())
    assert len(r["embedding"]) == 1024
    r = json.loads(c.invoke_model(modelId="cohere.embed-english-v3", body=json.dumps(
        {"texts": ["a cat", "tax returns"], "input_type": "search_document"}))["body"].read())
    assert r["response_type"] == "embeddings_floats" and r["texts"] == ["a cat", "tax returns"] and r["id"]
    assert r["embeddings"] == [vector("a cat", 1024), vector("tax returns", 1024)]
    r = json.loads(c.invoke_model(modelId="cohere.embed-v4:0", body=json.dumps(
        {"texts": ["a"], "input_type": "search_query", "embedding_types": ["float"]}))["body"].read())
    assert r["response_type"] == "embeddings_by_type" and len(r["embeddings"]["float"][0]) == 1536
    with pytest.raises(ClientError) as e:
        c.invoke_model(modelId="amazon.titan-embed-text-v2:0", body=json.dumps({"inputText": "x", "dimensions": 7}))
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert "dimensions must be 256, 512 or 1024" in e.value.response["Error"]["Message"]


def test_event_stream_frames_pass_botocores_decoder() -> None:
    data = eventstream.event("chunk", {"bytes": base64.b64encode(b"{}").decode()}) + \
        eventstream.exception("throttlingException", "slow down")
    buf = botocore.eventstream.EventStreamBuffer()
    for k in range(0, len(data), 7):  # fed in pieces
        buf.add_data(data[k:k + 7])
    msgs = list(buf)
    assert [m.headers for m in msgs] == [
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"},
        {":exception-type": "throttlingException", ":content-type": "application/json", ":message-type": "exception"}]
    assert json.loads(msgs[1].payload) == {"message": "slow down"}
    ours = list(eventstream.Decoder().feed(data))
    assert [(m.kind, m.is_event, m.payload) for m in ours] == [(m.headers.get(":event-type") or
                                                                 m.headers[":exception-type"],
                                                                 m.headers[":message-type"] == "event", m.payload)
                                                                for m in msgs]
    with pytest.raises(eventstream.EventStreamError):
        list(eventstream.Decoder().feed(data[:-1] + b"\x00"))


def test_claude_codes_bedrock_model_probe_is_a_side_call(tools_server: MockLLMServer) -> None:
    """Over Bedrock, Claude Code first asks each model it may use for one token: no scripted step is spent."""
    c = client(tools_server, "AKIDPROBE")
    probe = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1,
                        "messages": [{"role": "user", "content": "."}]})
    for model in (MODEL, "us.anthropic.claude-haiku-4-5-20251001-v1:0"):
        assert json.loads(c.invoke_model(modelId=model, body=probe)["body"].read())["content"][0]["type"] == "text"
    s = tools_server.session("AKIDPROBE")
    assert (s["side_calls"], s["consumed"]) == (2, 0)


class _Raw:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self) -> Iterator[bytes]:
        yield from (self.data[k:k + 5] for k in range(0, len(self.data), 5))

    def close(self) -> None:
        pass


def test_an_exception_message_mid_stream_is_botocores_event_stream_error() -> None:
    import botocore.parsers
    import botocore.session

    op = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("ConverseStream")
    data = eventstream.event("messageStart", {"role": "assistant"}) + \
        eventstream.exception("throttlingException", "slow down")
    stream = botocore.eventstream.EventStream(_Raw(data), op.output_shape.members["stream"],
                                              botocore.parsers.EventStreamJSONParser(), "ConverseStream")
    it = iter(stream)
    assert next(it) == {"messageStart": {"role": "assistant"}}
    with pytest.raises(botocore.exceptions.EventStreamError) as e:
        next(it)
    assert e.value.response["Error"] == {"Code": "throttlingException", "Message": "slow down"}


def test_a_bedrock_api_key_bearer_token_names_the_session(tools_server: MockLLMServer,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``AWS_BEARER_TOKEN_BEDROCK`` (Anthropic's Bedrock client, Claude Code; boto3 sends it over HTTPS only)."""
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-123")
    ab = anthropic.AnthropicBedrock(aws_region="us-east-1", base_url=tools_server.base_url, max_retries=0)
    reply = ab.messages.create(model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "list the files"}])
    assert reply.stop_reason == "tool_use"
    assert tools_server.session("bedrock-api-key-123")["consumed"] == 1


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_fuzzed_streams_read_the_same_through_boto3(seed: str) -> None:
    """``/fuzz/{seed}/``: deltas cut anywhere and tool arguments in another valid form, the same reply."""
    with serve(load_scenario_text(STYLED, "weather.yaml")) as server:
        got = []
        for base in (server.base_url, server.base_url + f"/fuzz/{seed}"):
            def fresh(key: str, base: str = base) -> Any:  # a session each: both calls get the first reply
                return boto3.client("bedrock-runtime", endpoint_url=base, region_name="us-east-1",
                                    aws_access_key_id=key + str(len(base)), aws_secret_access_key="s")

            msgs = [{"role": "user", "content": [{"text": "weather?"}]}]
            c = fresh("AKIDCONVERSE")
            conv = converse_events(c.converse_stream(modelId=MODEL, messages=msgs, toolConfig=TOOLS)["stream"])
            c = fresh("AKIDINVOKE")
            events = [json.loads(e["chunk"]["bytes"]) for e in c.invoke_model_with_response_stream(
                modelId=MODEL, body=anthropic_body([{"role": "user", "content": "weather?"}]))["body"]]
            deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
            for b in conv["content"]:  # ids are made from the session's name
                b.get("toolUse", {}).pop("toolUseId", None)
            got.append((conv["content"][1:], conv["stopReason"], "".join(d.get("text", "") for d in deltas),
                        json.loads("".join(d.get("partial_json", "") for d in deltas))))
        assert got[0] == got[1]
        assert got[0][3] == {"city": "Paris"}


@pytest.mark.surface("GET /foundation-models", client="boto3")
def test_the_control_planes_model_listing(weather: MockLLMServer) -> None:
    c = boto3.client("bedrock", endpoint_url=weather.base_url, region_name="us-east-1", aws_access_key_id="AKIDLIST",
                     aws_secret_access_key="s")
    models = c.list_foundation_models()["modelSummaries"]
    assert [m["modelId"] for m in models] == ["autocue-mock", "weather"]
    assert models[1]["modelArn"] == "arn:aws:bedrock:us-east-1::foundation-model/weather"
    assert models[1]["responseStreamingSupported"] is True and models[1]["modelLifecycle"] == {"status": "ACTIVE"}


@pytest.mark.surface("POST /model/{modelId}/count-tokens", client="boto3")
def test_count_tokens_through_boto3(tools_server: MockLLMServer) -> None:
    c = client(tools_server, "AKIDCOUNT")
    got = c.count_tokens(modelId=MODEL, input={"converse": {"messages": [
        {"role": "user", "content": [{"text": "count these words please, all of them"}]}]}})
    assert got["inputTokens"] > 0
    assert not any(x["id"] == "AKIDCOUNT" for x in tools_server.sessions()), "a count is no model call"
