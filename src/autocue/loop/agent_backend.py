"""The built-in autocue agent as a loop backend.

Public surface: ``AgentBackend(provider, model=None, *, system_prompt=..., tools=())`` and
``agent_backend_from_options(options)``.

``provider`` is a ``Provider`` (anything with ``stream(model, context, options)``: a
``ScriptedProvider``, an HTTP provider, ...) or a zero-argument factory returning one (a
fresh provider per activation). Every activation is a fresh ``Agent`` (fresh context, as
ralph gives every iteration): the hat prompt is sent, the agent runs its tools until it
stops, and the text of its assistant messages is the output the loop parses for events.
A reply that ends in ``error``/``aborted`` is a failed run (exit code 1, the error on stderr);
an exhausted scripted provider is fatal.

From config: ``{type: agent, factory: "module:callable"}`` (the callable returns a provider
or ``(provider, model)``), or ``{type: agent, api: openai-completions, model: ID, base_url: URL,
api_key_env: NAME}`` which uses ``autocue.llm.providers.create_provider`` (imported only then).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from autocue.agent import Agent, AgentTool
from autocue.llm.stream import Provider
from autocue.llm.types import AssistantMessage, Model
from autocue.loop.backend import BackendResult, Invocation

DEFAULT_SYSTEM_PROMPT = (
    "You are one hat of an orchestration loop. Follow the instructions in the prompt, publish events "
    'with <event topic="...">payload</event>, and keep the scratchpad up to date.'
)

ProviderSource = Provider | Callable[[], Provider]


class AgentBackend:
    """See module docstring."""

    name = "agent"

    def __init__(
        self,
        provider: ProviderSource,
        model: Model | None = None,
        *,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        tools: Sequence[AgentTool] = (),
    ) -> None:
        self._provider = provider
        self.model = model
        self.system_prompt = system_prompt
        self.tools = list(tools)
        self.runs = 0
        self.failures = 0

    def _get_provider(self) -> Provider:
        p = self._provider
        if hasattr(p, "stream"):
            return p  # type: ignore[return-value]
        made = p()  # type: ignore[operator]
        if not hasattr(made, "stream"):
            raise TypeError(f"the agent backend's provider factory returned {type(made).__name__}, not a provider")
        return made  # type: ignore[no-any-return]

    async def run(self, invocation: Invocation) -> BackendResult:
        self.runs += 1
        provider = self._get_provider()
        model = self.model
        if model is None:
            from autocue.script import scripted_model

            model = scripted_model()
        before = len(getattr(provider, "exhausted", ()) or ())
        agent = Agent(provider=provider, model=model, system_prompt=self.system_prompt, tools=self.tools)
        messages = await agent.prompt(invocation.prompt)
        texts: list[str] = []
        last: AssistantMessage | None = None
        for m in messages:
            if isinstance(m, AssistantMessage):
                last = m
                t = m.text
                if t:
                    texts.append(t)
        output = "\n".join(texts)
        if output:
            invocation.on_output((output + "\n").encode("utf-8"), True)
        exhausted = getattr(provider, "exhausted", None)
        if exhausted is not None and len(exhausted) > before:
            msg = exhausted[-1].message()
            self.failures += 1
            return BackendResult(output=output, stderr=msg, exit_code=1, error=msg, fatal=True)
        if last is None or last.stop_reason in ("error", "aborted"):
            msg = (last.error_message if last is not None else None) or "the agent produced no reply"
            self.failures += 1
            invocation.on_output((msg + "\n").encode("utf-8"), False)
            return BackendResult(output=output, stderr=msg, exit_code=1, error=msg)
        return BackendResult(output=output)

    def stats(self) -> dict[str, Any]:
        return {"runs": self.runs, "failures": self.failures}


def _import(ref: str) -> Any:
    mod, _, attr = ref.partition(":")
    if not mod or not attr:
        raise ValueError(f"factory {ref!r} must look like 'package.module:callable'")
    return getattr(importlib.import_module(mod), attr)


def agent_backend_from_options(opts: dict[str, Any]) -> AgentBackend:
    """Build the backend from a config mapping (see module docstring)."""
    system_prompt = str(opts.get("system_prompt") or DEFAULT_SYSTEM_PROMPT)
    if opts.get("factory"):
        made = _import(str(opts["factory"]))()
        if isinstance(made, tuple):
            provider, model = made
            return AgentBackend(provider, model, system_prompt=system_prompt)
        return AgentBackend(made, system_prompt=system_prompt)
    api = opts.get("api")
    model_id = opts.get("model")
    if not api or not model_id:
        raise ValueError(
            "an agent backend needs 'factory: module:callable', or 'api' and 'model' "
            "(e.g. api: openai-completions, model: gpt-4o-mini, base_url: http://127.0.0.1:8080/v1)"
        )
    providers = importlib.import_module("autocue.llm.providers")
    key_env = opts.get("api_key_env")
    key = os.environ.get(str(key_env)) if key_env else opts.get("api_key")

    def resolve(_provider: str) -> str | None:
        return str(key) if key else None

    provider = providers.create_provider(str(api), api_key_resolver=resolve)
    model = Model(
        id=str(model_id), api=str(api), provider=str(opts.get("provider", api)),
        base_url=str(opts.get("base_url", "")),
    )
    return AgentBackend(provider, model, system_prompt=system_prompt)


__all__ = ["AgentBackend", "ProviderSource", "agent_backend_from_options"]
