"""``ProviderRouter``: the provider an ``AgentSession``'s agent streams through.

A model whose provider an extension registered (``ExtensionAPI.register_provider``) goes to
that extension's provider; every other model goes to the session's own ``provider``.
"""

from __future__ import annotations

from typing import Any

from autocue.extensions.runner import ExtensionRunner
from autocue.llm.stream import AssistantMessageEventStream, Provider, StreamOptions
from autocue.llm.types import Context, Model


class ProviderRouter:
    __slots__ = ("_ext", "_runner", "base")

    def __init__(self, base: Provider, runner: ExtensionRunner) -> None:
        self.base = base
        self._runner = runner
        self._ext: dict[str, Any] = {}

    def refresh(self) -> None:
        """Re-read the extensions' providers (after a registration)."""
        self._ext = self._runner.providers()

    def models(self) -> list[Model]:
        """The models of every extension provider."""
        return [m for p in self._ext.values() for m in p.models]

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        if self._ext:
            p = self._ext.get(model.provider)
            if p is not None:
                return p.provider.stream(model, context, options)  # type: ignore[no-any-return]
        return self.base.stream(model, context, options)


__all__ = ["ProviderRouter"]
