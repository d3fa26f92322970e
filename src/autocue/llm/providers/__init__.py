"""Real LLM providers over HTTP (``httpx2``), one module per API, all behind ``Provider``.

| api | class | endpoint |
|---|---|---|
| ``openai-completions`` | ``OpenAICompletionsProvider`` | ``POST {base_url}/chat/completions`` |
| ``openai-responses`` | ``OpenAIResponsesProvider`` | ``POST {base_url}/responses`` |
| ``anthropic-messages`` | ``AnthropicMessagesProvider`` | ``POST {base_url}/v1/messages`` |
| ``google-generative`` | ``GoogleGenerativeProvider`` | ``POST {base_url}/v1beta/models/{id}:streamGenerateContent`` |

``create_provider(api, **kwargs)`` builds one by API name (imported lazily: importing this
package does not import ``httpx2``). Shared pieces: ``sse`` (incremental event-stream
decoding), ``partial_json`` (streamed tool arguments), ``builder`` (stream-event
bookkeeping), ``convert`` (history preparation), ``http`` (requests, errors, abort).
"""

from __future__ import annotations

import importlib
from typing import Any

from autocue.llm.stream import Provider

PROVIDER_CLASSES: dict[str, tuple[str, str]] = {
    "openai-completions": ("autocue.llm.providers.openai_completions", "OpenAICompletionsProvider"),
    "openai-responses": ("autocue.llm.providers.openai_responses", "OpenAIResponsesProvider"),
    "anthropic-messages": ("autocue.llm.providers.anthropic_messages", "AnthropicMessagesProvider"),
    "google-generative": ("autocue.llm.providers.google_generative", "GoogleGenerativeProvider"),
}
"""API name -> (module, class) of the built-in HTTP providers."""

KNOWN_APIS: tuple[str, ...] = tuple(PROVIDER_CLASSES)


def create_provider(api: str, **kwargs: Any) -> Provider:
    """A new provider for ``api`` (keyword arguments go to its constructor, e.g.
    ``api_key_resolver``, ``timeout``). Raises ``ValueError`` naming the known APIs."""
    try:
        module_name, cls_name = PROVIDER_CLASSES[api]
    except KeyError:
        raise ValueError(f"unknown api {api!r}; known: {', '.join(KNOWN_APIS)}") from None
    cls = getattr(importlib.import_module(module_name), cls_name)
    provider: Provider = cls(**kwargs)
    return provider


__all__ = ["KNOWN_APIS", "PROVIDER_CLASSES", "create_provider"]
