"""The wire APIs autocue speaks, by name: one ``ApiEntry`` each.

This is the low-layer half of the mock server's wire registry (``autocue.mockllm.wire``):
the names ``scenario`` (``server.llmApiStyle``), ``runner`` (launch profiles, ``--llm-api``),
``record`` and the CLI read, and the dotted path of the module that knows the API's wire
(``mockllm/wire/<name>.py``, loaded only by the server). Adding a wire API is one module there
plus one ``ApiEntry`` here (or ``register`` at run time).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ApiEntry:
    name: str
    """The mock server's name of the API (``chat``): ``Incoming.api``, ``autocue record --api``."""
    style: str
    """The scenario's ``server.llmApiStyle`` value that selects it (``openai``)."""
    label: str
    """What messages call it (``OpenAI Chat Completions``)."""
    provider_api: str
    """``Model.api`` of autocue's provider that speaks it (``openai-completions``); ``""``: none."""
    module: str
    """Dotted path of its wire module; the module's ``API`` is its ``WireApi``."""
    agent_key: str = ""
    """The key of ``AgentProfile.apis`` for it (default: ``style``)."""
    aliases: tuple[str, ...] = ()
    """Other names of ``style`` (``--llm-api`` values)."""
    base_path: str = ""
    """What autocue's provider of the API expects after a server's root in its base URL (``/v1`` for
    OpenAI's APIs, whose SDKs append only ``/chat/completions``)."""

    @property
    def agent_api(self) -> str:
        return self.agent_key or self.style

    @property
    def names(self) -> tuple[str, ...]:
        """Every style name that selects it: ``style``, ``aliases`` and the agent key."""
        return tuple(dict.fromkeys((self.style, *self.aliases, self.agent_api)))


_WIRE = "autocue.mockllm.wire."
APIS: dict[str, ApiEntry] = {e.name: e for e in (
    ApiEntry("chat", "openai", "OpenAI Chat Completions", "openai-completions", _WIRE + "chat", base_path="/v1"),
    ApiEntry("responses", "responses", "OpenAI Responses", "openai-responses", _WIRE + "responses",
             agent_key="openai-responses", base_path="/v1"),
    ApiEntry("anthropic", "anthropic", "Anthropic Messages", "anthropic-messages", _WIRE + "anthropic"),
    ApiEntry("interactions", "gemini-interactions", "Gemini Interactions", "", _WIRE + "interactions"),
    ApiEntry("gemini", "gemini", "Gemini generateContent", "google-generative", _WIRE + "gemini",
             aliases=("google",)),
    ApiEntry("bedrock", "bedrock", "AWS Bedrock (Converse, InvokeModel)", "", _WIRE + "bedrock"),
    ApiEntry("ollama", "ollama", "Ollama", "", _WIRE + "ollama"),
)}
"""Every wire API, in the order the server tries their paths (the first one's error shape is
the fallback of a path no API claims)."""


def register(entry: ApiEntry) -> None:
    """Add (or replace) a wire API at run time; ``autocue.mockllm.wire.registry`` loads its module."""
    APIS[entry.name] = entry


def unregister(name: str) -> None:
    APIS.pop(name, None)


def api_names() -> tuple[str, ...]:
    return tuple(APIS)


def styles() -> tuple[str, ...]:
    """The ``server.llmApiStyle`` values, in order."""
    return tuple(e.style for e in APIS.values())


def label(name: str) -> str:
    e = APIS.get(name)
    return e.label if e is not None else name


def provider_api_for_style() -> dict[str, str]:
    """``Model.api`` per style name (aliases included), for the APIs a provider speaks."""
    return {n: e.provider_api for e in APIS.values() if e.provider_api for n in e.names}


def agent_aliases() -> dict[str, str]:
    """Style names that are not the ``AgentProfile.apis`` key of their API, mapped to it."""
    return {n: e.agent_api for e in APIS.values() for n in e.names if n != e.agent_api}


def either(names: tuple[str, ...], last: str = "or") -> str:
    """``a, b, c or d``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"
