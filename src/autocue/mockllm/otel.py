"""The mock server's spans (``autocue.telemetry``, docs/telemetry.md): a request and its outcome as
GenAI attributes. Called only while telemetry is on (``telemetry.TRACER is not None``)."""

from __future__ import annotations

import hashlib
from typing import Any

from autocue import telemetry
from autocue.mockllm.ids import digest
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.state import Outcome

PROVIDERS = {"chat": "openai", "responses": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini",
             "interactions": "gcp.gemini", "bedrock": "aws.bedrock", "ollama": "ollama"}
"""``gen_ai.provider.name`` of each wire API (its well-known value; another API's own name)."""
FINISH = {"stop": "stop", "toolUse": "tool_call", "length": "length", "error": "error", "aborted": "cancelled"}


def session_id(key: str) -> str:
    """A session key as exported: a hash (a key may be a client's API key)."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def request_span(req: Incoming, out: Outcome, start: int) -> None:
    """The span of one answered model request, with the tool spans its tool results close."""
    t = telemetry.TRACER
    if t is None:
        return
    reply = out.reply
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": PROVIDERS.get(req.api, req.api),
        "gen_ai.request.model": req.model, "gen_ai.conversation.id": session_id(req.session_key),
        "autocue.api": req.api, "autocue.stream": req.stream, "autocue.transport": req.transport,
        "http.response.status_code": out.status,
    }
    host = req.headers.get("host", "")
    if host:
        name, _, port = host.rpartition(":") if host.rpartition(":")[2].isdigit() else (host, "", "")
        attrs["server.address"] = name
        if port:
            attrs["server.port"] = int(port)
    if req.scenario:
        attrs["autocue.scenario.name"] = req.scenario
    if out.taken is not None:
        attrs["autocue.step"] = out.taken
    calls: list[tuple[str, str]] = []
    if reply is not None:
        attrs["gen_ai.response.model"] = req.model
        attrs["gen_ai.response.id"] = "req_" + digest(reply.seed, "req", size=12)  # its x-request-id
        attrs["gen_ai.response.finish_reasons"] = [FINISH.get(reply.stop_reason, reply.stop_reason)]
        attrs["gen_ai.usage.input_tokens"] = reply.input_tokens
        attrs["gen_ai.usage.output_tokens"] = reply.output_tokens
        if reply.thinking_tokens:
            attrs["gen_ai.usage.reasoning.output_tokens"] = reply.thinking_tokens
        if reply.cache_read:
            attrs["gen_ai.usage.cache_read.input_tokens"] = reply.cache_read
        calls = [(b.id, b.name) for b in reply.blocks if b.kind == "call"]
    reason = out.headers.get("x-autocue-error")
    if reason:
        attrs["autocue.error.reason"] = reason
    results = _results(req) if t.pending else []
    t.model_request(f"chat {req.model}", attrs, start=start, headers=req.headers, session=req.session_key,
                    error=str(out.status) if out.status >= 400 else None, calls=calls, results=results)


def embeddings_span(req: Incoming, status: int, start: int) -> None:
    """The span of one embeddings request."""
    t = telemetry.TRACER
    if t is None:
        return
    attrs: dict[str, Any] = {"gen_ai.operation.name": "embeddings", "gen_ai.provider.name": PROVIDERS.get(req.api,
                             req.api), "gen_ai.request.model": req.model, "autocue.api": req.api,
                             "gen_ai.conversation.id": session_id(req.session_key), "http.response.status_code": status}
    t.model_request(f"embeddings {req.model}", attrs, start=start, headers=req.headers, session=req.session_key,
                    error=str(status) if status >= 400 else None, calls=(), results=())


def _results(req: Incoming) -> list[Any]:
    from autocue.telemetry.sdk import ToolResult

    try:
        messages = req.wire.context(req.view).messages
    except Exception:  # a body autocue cannot read as a context: no tool spans, still the request span
        return []
    return [ToolResult(m.tool_call_id, m.tool_name, m.is_error) for m in messages if m.role == "toolResult"]
