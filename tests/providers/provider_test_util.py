"""Helpers for provider tests: a running ``WireServer`` and event collection."""

from __future__ import annotations

from typing import Any

from provider_wire_server import WireServer

from autocue.llm import AssistantMessage, Context, Model, StreamOptions, Tool
from autocue.llm.providers import create_provider

READ_TOOL = Tool("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def model_for(api: str, server: WireServer, *, reasoning: bool = False, model_id: str = "m1", **compat: Any) -> Model:
    base = server.url + ("/v1" if api.startswith("openai") else "")
    return Model(
        id=model_id,
        api=api,
        provider="test",
        base_url=base,
        reasoning=reasoning,
        input=["text", "image"],
        compat=dict(compat),
    )


async def collect(
    api: str, model: Model, context: Context, options: StreamOptions | None = None
) -> tuple[list[Any], AssistantMessage]:
    provider = create_provider(api, api_key_resolver=lambda name: f"key-for-{name}")
    events: list[Any] = []
    stream = provider.stream(model, context, options or StreamOptions())
    async for ev in stream:
        events.append(ev)
    msg = await stream.result()
    await provider.aclose()  # type: ignore[attr-defined]
    return events, msg


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]
