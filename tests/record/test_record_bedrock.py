"""Recording Bedrock through ``autocue record`` (Converse and InvokeModel, event-stream and whole)
and replaying the recording through ``autocue serve``, judged by boto3's ``bedrock-runtime`` client:
the replayed replies equal the recorded ones, and no SigV4 credential reaches the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from autocue.mockllm.server import serve
from autocue.record import RecordingServer
from autocue.scenario import load_scenario

UPSTREAM = """\
name: bedrock-loop
initialPrompt: list the files
timeline:
  - llmResponse:
      - think: [[0, "Let me look around."]]
      - assistant: [[0, "Listing."]]
      - agentToolUse: {toolName: bash, toolCallId: tooluse_ls, args: {command: ls}}
  - llmResponse:
      - agentToolUse: {toolName: read, toolCallId: tooluse_a, args: {path: a.txt}}
      - agentToolUse: {toolName: read, toolCallId: tooluse_b, args: {path: b.txt}}
  - error: {statusCode: 429, message: slow down}
  - llmResponse:
      - assistant: [[0, "Both files say hello. Ünïcödé ✓"]]
  - userInputs: [[0, "now summarize"]]
  - llmResponse:
      - assistant: [[0, "Summary: hello twice."]]
"""
PROMPTS = ["list the files", "now summarize"]
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLE-SESSION-TOKEN"
SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "path": {"type": "string"}}}
Reply = dict[str, Any]


def _client(base_url: str, key: str) -> Any:
    return boto3.client("bedrock-runtime", endpoint_url=base_url, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=SECRET, aws_session_token=TOKEN,
                        config=botocore.config.Config(retries={"total_max_attempts": 1}))


def converse(streamed: bool) -> Callable[[str, str], list[Reply]]:
    def run(base_url: str, key: str) -> list[Reply]:
        c = _client(base_url, key)
        tools = {"tools": [{"toolSpec": {"name": n, "inputSchema": {"json": SCHEMA}}} for n in ("bash", "read")]}
        msgs: list[dict[str, Any]] = []
        out: list[Reply] = []
        for prompt in PROMPTS:
            msgs.append({"role": "user", "content": [{"text": prompt}]})
            while True:
                try:
                    if streamed:
                        content, stop = _gather(c.converse_stream(modelId=MODEL, messages=msgs, toolConfig=tools))
                    else:
                        r = c.converse(modelId=MODEL, messages=msgs, toolConfig=tools)
                        content, stop = r["output"]["message"]["content"], r["stopReason"]
                        for b in content:  # a signature is the server's, made from the session's name
                            b.get("reasoningContent", {}).get("reasoningText", {}).pop("signature", None)
                except ClientError as e:
                    out.append({"error": e.response["Error"]["Code"]})
                    continue
                calls = [b["toolUse"] for b in content if "toolUse" in b]
                out.append({"content": content, "stop": stop})
                msgs.append({"role": "assistant", "content": content})
                if not calls:
                    break
                msgs.append({"role": "user", "content": [
                    {"toolResult": {"toolUseId": t["toolUseId"], "content": [{"text": f"ok {t['name']}"}]}}
                    for t in calls]})
        return out

    return run


def _gather(r: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    blocks: dict[int, dict[str, Any]] = {}
    stop = ""
    for e in r["stream"]:
        (kind, d), = e.items()
        if kind == "contentBlockStart":
            blocks[d["contentBlockIndex"]] = {"toolUse": dict(d["start"]["toolUse"], input="")}
        elif kind == "contentBlockDelta":
            b = blocks.setdefault(d["contentBlockIndex"], {})
            delta = d["delta"]
            if "text" in delta:
                b["text"] = b.get("text", "") + delta["text"]
            elif "toolUse" in delta:
                b["toolUse"]["input"] += delta["toolUse"]["input"]
            else:
                rt = b.setdefault("reasoningContent", {"reasoningText": {"text": ""}})["reasoningText"]
                rt["text"] += delta["reasoningContent"].get("text", "")
        elif kind == "messageStop":
            stop = d["stopReason"]
    for b in blocks.values():
        if "toolUse" in b:
            b["toolUse"]["input"] = json.loads(b["toolUse"]["input"])
    return [blocks[i] for i in sorted(blocks)], stop


def invoke(streamed: bool) -> Callable[[str, str], list[Reply]]:
    def run(base_url: str, key: str) -> list[Reply]:
        c = _client(base_url, key)
        msgs: list[dict[str, Any]] = []
        out: list[Reply] = []
        for prompt in PROMPTS:
            msgs.append({"role": "user", "content": prompt})
            while True:
                body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024, "messages": msgs,
                                   "tools": [{"name": n, "input_schema": SCHEMA} for n in ("bash", "read")]})
                try:
                    if streamed:
                        events = [json.loads(e["chunk"]["bytes"]) for e in
                                  c.invoke_model_with_response_stream(modelId=MODEL, body=body)["body"]]
                        content, stop = _anthropic_blocks(events)
                    else:
                        m = json.loads(c.invoke_model(modelId=MODEL, body=body)["body"].read())
                        content, stop = m["content"], m["stop_reason"]
                        for b in content:
                            b.pop("signature", None)
                except ClientError as e:
                    out.append({"error": e.response["Error"]["Code"]})
                    continue
                out.append({"content": content, "stop": stop})
                msgs.append({"role": "assistant", "content": content})
                calls = [b for b in content if b["type"] == "tool_use"]
                if not calls:
                    break
                msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b["id"],
                                                          "content": f"ok {b['name']}"} for b in calls]})
        return out

    return run


def _anthropic_blocks(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    blocks: list[dict[str, Any]] = []
    stop = ""
    for e in events:
        if e["type"] == "content_block_start":
            blocks.append({k: v for k, v in e["content_block"].items() if k != "signature"})
            if blocks[-1]["type"] == "tool_use":
                blocks[-1]["input"] = ""
        elif e["type"] == "content_block_delta":
            b, d = blocks[e["index"]], e["delta"]
            key = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature",
                   "input_json_delta": "partial_json"}[d["type"]]
            field = "input" if key == "partial_json" else key
            if key != "signature":
                b[field] = b.get(field, "") + d[key]
        elif e["type"] == "message_delta":
            stop = e["delta"]["stop_reason"]
    for b in blocks:
        if b["type"] == "tool_use":
            b["input"] = json.loads(b["input"] or "{}")
    return blocks, stop


CLIENTS = {"converse": converse(False), "converse-stream": converse(True), "invoke": invoke(False),
           "invoke-with-response-stream": invoke(True)}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_bedrock_recording_replays_the_same_replies_and_holds_no_sigv4_secret(name: str, tmp_path: Path) -> None:
    client = CLIENTS[name]
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    with serve(upstream) as up:
        direct = client(up.base_url, "AKIDDIRECT")
        with RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec") as rec:
            proxied = client(rec.base_url, "AKIDRECORDED")
            files = rec.files
    assert proxied == direct, "the proxy changed what the client saw"
    assert [r.get("error") for r in proxied] == [None, None, "ThrottlingException", None, None]
    assert len(files) == 1
    text = files[0].read_text(encoding="utf-8")
    for secret in (SECRET, TOKEN, "AWS4-HMAC-SHA256", "Signature=", "X-Amz-Date", "AKIDRECORDED"):
        assert secret.lower() not in text.lower(), secret
    sc = load_scenario(files[0])
    assert sc.warnings == []
    assert [len(t.steps) for t in sc.compile().turns] == [4, 1]
    with serve(files[0]) as replay:
        replayed = client(replay.base_url, "AKIDREPLAY")
        status = replay.session("AKIDREPLAY")
    assert replayed == proxied
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (5, 0), status


def test_a_sigv4_signature_is_learned_as_a_secret_on_its_own() -> None:
    from autocue.record import Redactor

    sig = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
    red = Redactor(defaults=False)
    red.learn_headers({"authorization": f"AWS4-HMAC-SHA256 Credential=AKIDX/20261128/us-east-1/bedrock/aws4_request, "
                                        f"SignedHeaders=host;x-amz-date, Signature={sig}",
                       "x-amz-security-token": "IQoJb3JpZ2luX2VjSESSIONTOKEN"})
    assert red.text(f"sig {sig} token IQoJb3JpZ2luX2VjSESSIONTOKEN") == "sig [REDACTED] token [REDACTED]"
