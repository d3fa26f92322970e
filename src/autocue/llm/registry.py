"""``ModelRegistry``: which models exist, how to reach them, and the provider for each.

A registry instance (no global state) merges, lowest precedence first:

1. built-in providers: ``openai`` (``openai-responses``, ``OPENAI_BASE_URL``,
   ``OPENAI_API_KEY``), ``openai-chat`` (``openai-completions``, same variables),
   ``anthropic`` (``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY``), ``google``
   (``GOOGLE_GEMINI_BASE_URL``, ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``) and ``autocue``
   (the ``autocue/playbook`` scripted model; its provider is supplied by the caller with
   ``register_api("scripted", provider)``);
2. ``<autocue dir>/models.json`` (``$AUTOCUE_DIR``, default ``~/.autocue``);
3. ``<cwd>/.autocue/models.json``.

A ``models.json`` looks like::

    {"default_model": "mock/mock-gpt",
     "providers": {"mock": {"base_url": "http://127.0.0.1:8080/v1", "api": "openai-completions",
                            "api_key": "k" | "api_key_env": "MOCK_KEY", "headers": {},
                            "models": [{"id": "mock-gpt", "context_window": 128000,
                                        "max_tokens": 16384, "reasoning": false}]}}}

(pi's camelCase spellings ``baseUrl``, ``apiKey``, ``contextWindow``, ``maxTokens`` are
accepted too.) A provider defined again in a later file replaces the earlier definition's
fields it names; its models are merged by id.

``find("provider/model")`` resolves a model (``"model"`` alone works when one provider has
it); a model id a known provider does not list is accepted with that provider's defaults, so
any model of a mock server can be named. ``provider_for(api)`` / ``router()`` give the
``Provider`` that streams it (HTTP providers are created lazily, once per registry).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autocue import casing
from autocue.llm.errors import ModelRegistryError as ModelRegistryError
from autocue.llm.stream import AssistantMessageEventStream, Provider, StreamOptions, error_stream
from autocue.llm.types import Context, Model, ModelCost

SCRIPTED_API = "scripted"
PLAYBOOK_MODEL = "autocue/playbook"


@dataclass(slots=True)
class ProviderConfig:
    """One provider: where it is, which API it speaks, its key, headers and models."""

    name: str
    api: str
    base_url: str = ""
    api_key: str | None = None
    api_key_env: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    models: dict[str, Model] = field(default_factory=dict)
    source: str = "built-in"
    defaults: dict[str, Any] = field(default_factory=dict)
    """Model fields applied to models this provider does not list."""

    def model(self, model_id: str) -> Model:
        m = self.models.get(model_id)
        if m is not None:
            return m
        return _make_model(self, {"id": model_id, **self.defaults})


def autocue_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$AUTOCUE_DIR`` or ``~/.autocue``."""
    e = os.environ if env is None else env
    d = e.get("AUTOCUE_DIR")
    return Path(d).expanduser() if d else Path.home() / ".autocue"


_BUILTIN_PROVIDERS: tuple[tuple[str, str, str, str, str, int, int, bool], ...] = (
    # name, api, base URL variable, default base URL, key variable ("": Gemini's, chosen from the
    # environment), context window, max tokens, reasoning
    ("openai", "openai-responses", "OPENAI_BASE_URL", "https://api.openai.com/v1", "OPENAI_API_KEY",
     400_000, 128_000, False),
    ("openai-chat", "openai-completions", "OPENAI_BASE_URL", "https://api.openai.com/v1", "OPENAI_API_KEY",
     128_000, 16_384, False),
    ("anthropic", "anthropic-messages", "ANTHROPIC_BASE_URL", "https://api.anthropic.com", "ANTHROPIC_API_KEY",
     200_000, 32_000, True),
    ("google", "google-generative", "GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com", "",
     1_048_576, 65_536, True),
)
"""The built-in providers (``models.json`` may change or add to them)."""
_KNOWN_APIS = ("openai-completions", "openai-responses", "anthropic-messages", "google-generative", SCRIPTED_API)


class ModelRegistry:
    """Models and providers for one process (or one test). See the module docstring."""

    def __init__(
        self,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        agent_dir: str | Path | None = None,
        load_files: bool = True,
    ) -> None:
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.agent_dir = Path(agent_dir) if agent_dir is not None else autocue_dir(self.env)
        self.providers: dict[str, ProviderConfig] = {}
        self.default_model: str | None = None
        self.sources: list[Path] = []
        self._apis: dict[str, Provider] = {}
        self._builtins()
        if load_files:
            for path in (self.agent_dir / "models.json", self.cwd / ".autocue" / "models.json"):
                if path.is_file():
                    self.load_file(path)

    # ------------------------------------------------------------------ configuration
    def _builtins(self) -> None:
        e = self.env
        google_key = "GEMINI_API_KEY" if e.get("GEMINI_API_KEY") or not e.get("GOOGLE_API_KEY") else "GOOGLE_API_KEY"
        for name, api, url_env, url, key_env, context_window, max_tokens, reasoning in _BUILTIN_PROVIDERS:
            key_env = key_env or google_key
            defaults: dict[str, Any] = {"context_window": context_window, "max_tokens": max_tokens}
            if reasoning:
                defaults["reasoning"] = True
            defaults["input"] = ["text", "image"]
            self.providers[name] = ProviderConfig(name, api, e.get(url_env) or url, api_key_env=key_env,
                                                  defaults=defaults)
        playbook = ProviderConfig("autocue", SCRIPTED_API, "")
        playbook.models["playbook"] = _make_model(playbook, {"id": "playbook", "reasoning": True})
        self.providers["autocue"] = playbook

    def load_file(self, path: str | Path) -> None:
        """Merge one ``models.json`` (raises ``ModelRegistryError`` naming file and field)."""
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ModelRegistryError(f"{p}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
        except OSError as e:
            raise ModelRegistryError(f"{p}: cannot read models.json: {e.strerror}") from None
        self.load_dict(data, source=str(p))
        self.sources.append(p)

    def load_dict(self, data: Any, *, source: str = "<dict>") -> None:
        """Merge a parsed ``models.json`` document."""
        if not isinstance(data, dict):
            raise ModelRegistryError(f"{source}: the top level must be an object with a 'providers' object")
        unknown = set(data) - {"providers", "default_model", "defaultModel", "$schema"}
        if unknown:
            raise ModelRegistryError(
                f"{source}: unknown top-level key(s) {sorted(unknown)}; expected 'providers' and 'default_model'"
            )
        providers = data.get("providers", {})
        if not isinstance(providers, dict):
            raise ModelRegistryError(f"{source}: 'providers' must be an object mapping names to provider settings")
        for name, raw in providers.items():
            self._merge_provider(name, raw, f"{source}: providers.{name}")
        dm = casing.field(data, "default_model")
        if dm is not casing.MISSING and dm is not None:
            if not isinstance(dm, str) or not dm:
                raise ModelRegistryError(f"{source}: default_model must be a 'provider/model' string")
            self.default_model = dm

    def add_provider(
        self,
        name: str,
        *,
        api: str,
        base_url: str = "",
        api_key: str | None = None,
        api_key_env: str | None = None,
        headers: Mapping[str, str] | None = None,
        models: list[dict[str, Any]] | None = None,
    ) -> ProviderConfig:
        """Define (or extend) a provider in code, with the same fields as ``models.json``."""
        raw: dict[str, Any] = {"api": api, "base_url": base_url, "models": models or []}
        if api_key is not None:
            raw["api_key"] = api_key
        if api_key_env is not None:
            raw["api_key_env"] = api_key_env
        if headers:
            raw["headers"] = dict(headers)
        self._merge_provider(name, raw, f"add_provider({name!r})")
        return self.providers[name]

    def _merge_provider(self, name: str, raw: Any, where: str) -> None:
        if not isinstance(raw, dict):
            raise ModelRegistryError(f"{where}: must be an object")
        raw = _snake(raw)
        allowed = {"api", "base_url", "api_key", "api_key_env", "headers", "models"}
        unknown = set(raw) - allowed
        if unknown:
            raise ModelRegistryError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        cfg = self.providers.get(name)
        if cfg is None:
            api = raw.get("api")
            if not isinstance(api, str):
                raise ModelRegistryError(f"{where}: 'api' is required, one of {', '.join(_KNOWN_APIS)}")
            cfg = ProviderConfig(name, api, source=where)
            self.providers[name] = cfg
        else:
            cfg.source = where
        if "api" in raw:
            if raw["api"] not in _KNOWN_APIS:
                raise ModelRegistryError(f"{where}.api: unknown api {raw['api']!r}; known: {', '.join(_KNOWN_APIS)}")
            if raw["api"] != cfg.api:
                cfg.api = raw["api"]
                cfg.models = {k: replace(m, api=cfg.api) for k, m in cfg.models.items()}
        for key in ("base_url", "api_key", "api_key_env"):
            if key in raw:
                v = raw[key]
                if v is not None and not isinstance(v, str):
                    raise ModelRegistryError(f"{where}.{key}: must be a string")
                setattr(cfg, key, v)
        if "api_key" in raw and "api_key_env" not in raw:
            cfg.api_key_env = None
        if "headers" in raw:
            h = raw["headers"]
            if not isinstance(h, dict) or not all(isinstance(v, str) for v in h.values()):
                raise ModelRegistryError(f"{where}.headers: must be an object of strings")
            cfg.headers = dict(h)
        if cfg.base_url:
            cfg.models = {k: replace(m, api=cfg.api, base_url=cfg.base_url) for k, m in cfg.models.items()}
        models = raw.get("models", [])
        if not isinstance(models, list):
            raise ModelRegistryError(
                f"{where}.models: must be a list of {{id, context_window, max_tokens, reasoning}}"
            )
        for i, m in enumerate(models):
            if not isinstance(m, dict) or not isinstance(m.get("id"), str) or not m["id"]:
                raise ModelRegistryError(f"{where}.models[{i}]: each model needs a string 'id'")
            model = _make_model(cfg, _snake(m), f"{where}.models[{i}]")
            cfg.models[model.id] = model

    # ------------------------------------------------------------------ lookup
    def models(self) -> list[Model]:
        """Every listed model, provider by provider."""
        return [m for cfg in self.providers.values() for m in cfg.models.values()]

    def find(self, spec: str) -> Model:
        """The model for ``"provider/model"`` or a bare model id (must be unambiguous)."""
        spec = spec.strip()
        prov, slash, mid = spec.partition("/")
        cfg = self.providers.get(prov)
        if cfg is not None and mid:
            return cfg.model(mid)
        # A model id may itself contain "/" (openrouter style): try it bare.
        hits = [c.models[spec] for c in self.providers.values() if spec in c.models]
        if len(hits) == 1:
            return hits[0]
        if slash and cfg is None:
            raise ModelRegistryError(
                f"unknown provider {prov!r} in model {spec!r}; known providers: {', '.join(self.providers)}. "
                f"Define it in {self.agent_dir / 'models.json'} or {self.cwd / '.autocue' / 'models.json'}."
            )
        if len(hits) > 1:
            names = ", ".join(f"{m.provider}/{m.id}" for m in hits)
            raise ModelRegistryError(
                f"model {spec!r} is offered by several providers ({names}); name one as provider/model"
            )
        listed = ", ".join(f"{m.provider}/{m.id}" for m in self.models()) or "(none)"
        raise ModelRegistryError(f"unknown model {spec!r}; use provider/model. Listed models: {listed}")

    def resolve_default(self) -> Model | None:
        """``AUTOCUE_MODEL``, else ``default_model`` from models.json, else the first model a
        models.json lists, else ``None``."""
        spec = self.env.get("AUTOCUE_MODEL") or self.default_model
        if spec:
            return self.find(spec)
        for cfg in self.providers.values():
            if cfg.source != "built-in" and cfg.models:
                return next(iter(cfg.models.values()))
        return None

    def api_key(self, provider: str) -> str | None:
        """The key for ``provider``: its literal ``api_key``, else its ``api_key_env`` variable."""
        cfg = self.providers.get(provider)
        if cfg is None:
            return None
        if cfg.api_key:
            return cfg.api_key
        if cfg.api_key_env:
            return self.env.get(cfg.api_key_env) or None
        return None

    # ------------------------------------------------------------------ providers
    def register_api(self, api: str, provider: Provider) -> None:
        """Use ``provider`` for every model of ``api`` (e.g. a ``ScriptedProvider`` for
        ``"scripted"``, or a fake in tests)."""
        self._apis[api] = provider

    def provider_for(self, api: str) -> Provider:
        """The provider for ``api``, created on first use. Raises ``ModelRegistryError``."""
        p = self._apis.get(api)
        if p is not None:
            return p
        if api == SCRIPTED_API:
            raise ModelRegistryError(
                f"{PLAYBOOK_MODEL} plays a playbook, and none was given: pass --playbook FILE to the CLI, "
                "or register a ScriptedProvider with registry.register_api('scripted', provider)"
            )
        from autocue.llm.providers import create_provider

        try:
            p = create_provider(api, api_key_resolver=self.api_key)
        except ValueError as e:
            raise ModelRegistryError(str(e)) from None
        self._apis[api] = p
        return p

    def router(self) -> Provider:
        """One provider for the agent: routes each call to the provider of ``model.api``, so
        switching models mid-session just works."""
        return RoutingProvider(self)

    async def aclose(self) -> None:
        """Close the connection pools of the HTTP providers created so far."""
        for p in self._apis.values():
            close = getattr(p, "aclose", None)
            if close is not None:
                await close()


class RoutingProvider:
    """A ``Provider`` that hands each call to ``registry.provider_for(model.api)``."""

    def __init__(self, registry: ModelRegistry) -> None:
        self.registry = registry

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        try:
            provider = self.registry.provider_for(model.api)
        except ModelRegistryError as e:
            return error_stream(model, str(e))
        if options.api_key is None:
            key = self.registry.api_key(model.provider)
            if key:
                options.api_key = key
        headers = self.registry.providers.get(model.provider)
        if headers is not None and headers.headers:
            options.headers = {**headers.headers, **(options.headers or {})}
        return provider.stream(model, context, options)


_SNAKE_KEYS = ("base_url", "api_key", "api_key_env", "context_window", "max_tokens", "cache_read", "cache_write")
"""The keys of a models file that pi spells in camelCase (``baseUrl``, ``contextWindow``, ...)."""


def _snake(d: dict[str, Any]) -> dict[str, Any]:
    return casing.snake_keys(d, _SNAKE_KEYS)


_MODEL_KEYS = {"id", "name", "context_window", "max_tokens", "reasoning", "input", "cost", "headers", "compat"}


def _make_model(cfg: ProviderConfig, d: dict[str, Any], where: str = "") -> Model:
    unknown = set(d) - _MODEL_KEYS
    if unknown:
        raise ModelRegistryError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_MODEL_KEYS)}")
    for key in ("context_window", "max_tokens"):
        if key in d and (not isinstance(d[key], int) or d[key] <= 0):
            raise ModelRegistryError(f"{where}.{key}: must be a positive integer, got {d[key]!r}")
    if "reasoning" in d and not isinstance(d["reasoning"], bool):
        raise ModelRegistryError(f"{where}.reasoning: must be true or false")
    cost = d.get("cost") or {}
    if not isinstance(cost, dict):
        raise ModelRegistryError(f"{where}.cost: must be an object {{input, output, cache_read, cache_write}}")
    cost = _snake(cost)
    return Model(
        id=d["id"],
        api=cfg.api,
        provider=cfg.name,
        name=d.get("name") or d["id"],
        base_url=cfg.base_url,
        reasoning=bool(d.get("reasoning", False)),
        input=list(d.get("input") or ["text", "image"]),
        cost=ModelCost(
            float(cost.get("input", 0)),
            float(cost.get("output", 0)),
            float(cost.get("cache_read", 0)),
            float(cost.get("cache_write", 0)),
        ),
        context_window=int(d.get("context_window", 128_000)),
        max_tokens=int(d.get("max_tokens", 16_384)),
        headers=dict(d.get("headers") or {}),
        compat=dict(d.get("compat") or {}),
    )


__all__ = [
    "PLAYBOOK_MODEL",
    "SCRIPTED_API",
    "ModelRegistry",
    "ModelRegistryError",
    "ProviderConfig",
    "RoutingProvider",
    "autocue_dir",
]
