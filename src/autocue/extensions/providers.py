"""``ExtensionAPI.register_provider``: a provider (and its models) an extension brings.

pi's config shape: ``{baseUrl, apiKey, api, headers, models: [{id, ...}], streamSimple}``
(snake_case works too). Either ``api`` + ``baseUrl`` name an HTTP API autocue speaks
(``openai-completions``, ``openai-responses``, ``anthropic-messages``, ``google-generative-ai``),
or ``stream`` / ``streamSimple`` is a ``Provider`` (an object with ``stream(model, context,
options)``) or that function itself. The session sends every model of the provider's name to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autocue.casing import snake_keys
from autocue.llm.registry import ModelRegistry, ModelRegistryError
from autocue.llm.stream import AssistantMessageEventStream, Provider, StreamOptions
from autocue.llm.types import Context, Model

_CAMEL_KEYS = ("base_url", "api_key", "auth_header", "stream_simple")
"""The keys pi spells in camelCase (``baseUrl``, ``apiKey``, ``authHeader``, ``streamSimple``)."""
_KEYS = {"api", "headers", "models", "stream", "oauth", *_CAMEL_KEYS}


class _FunctionProvider:
    def __init__(self, fn: Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]) -> None:
        self._fn = fn

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        return self._fn(model, context, options)


@dataclass(slots=True)
class RegisteredProvider:
    name: str
    models: list[Model]
    provider: Provider
    """Streams every model of this provider (API key and headers applied)."""


def build_provider(name: str, config: Mapping[str, Any]) -> RegisteredProvider:
    """Check ``config`` and build the provider; raises ``ValueError`` naming the key."""
    where = f"register_provider({name!r})"
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"register_provider: the name must be a non-empty string without '/', got {name!r}")
    if not isinstance(config, Mapping):
        raise ValueError(f"{where}: the config must be a dict {{api, baseUrl, apiKey, models, ...}}")
    config = snake_keys(config, _CAMEL_KEYS)
    unknown = set(config) - _KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; use api, baseUrl, apiKey, authHeader, "
                         "headers, models, stream (or streamSimple)")
    if config.get("oauth") is not None:
        raise ValueError(f"{where}: oauth is not supported by autocue; give apiKey instead")
    stream = config.get("stream", config.get("stream_simple"))
    models = config.get("models")
    if not isinstance(models, list) or not models:
        raise ValueError(f"{where}: models must be a non-empty list of {{id, ...}}")
    api = config.get("api")
    if stream is not None:
        api = f"extension:{name}"
    elif not isinstance(api, str) or not api:
        raise ValueError(f"{where}: give api (and baseUrl) of an HTTP API, or stream (a Provider or function)")
    registry = ModelRegistry(load_files=False, env={})
    headers = dict(config.get("headers") or {})
    auth = config.get("auth_header")
    key = config.get("api_key")
    if auth and key:
        headers.setdefault("Authorization", f"Bearer {key}")
    try:
        registry.add_provider(
            name, api="scripted" if stream is not None else api,
            base_url=str(config.get("base_url", "") or ""),
            api_key=str(key) if key is not None else None, headers=headers,
            models=[dict(m) if isinstance(m, Mapping) else {"id": m} for m in models],
        )
    except ModelRegistryError as e:
        raise ValueError(f"{where}: {e}") from None
    cfg = registry.providers[name]
    if stream is not None:
        cfg.api = api  # its own API name: every model of it goes to ``stream``
        for m in cfg.models.values():
            m.api = api
        if hasattr(stream, "stream"):
            registry.register_api(api, stream)
        elif callable(stream):
            registry.register_api(api, _FunctionProvider(stream))
        else:
            raise ValueError(f"{where}: stream must be a Provider or a function (model, context, options)")
    return RegisteredProvider(name, [cfg.model(m.id) for m in cfg.models.values()], registry.router())


__all__ = ["RegisteredProvider", "build_provider"]
