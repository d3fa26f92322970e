"""Build backends from ``BackendSpec`` s.

Public surface: ``make_backend(spec)`` → ``MockBackend`` | ``CommandBackend`` | ``AgentBackend``.
"""

from __future__ import annotations

from autocue.loop.backend import Backend
from autocue.loop.command_backend import CommandBackend
from autocue.loop.config import BackendSpec, LoopConfigError
from autocue.loop.mock_backend import MockBackend, MockConfigError, parse_mock_responses


def make_backend(spec: BackendSpec) -> Backend:
    if spec.type == "mock":
        try:
            return MockBackend(parse_mock_responses(spec.options.get("responses")))
        except MockConfigError as e:
            raise LoopConfigError(f"{spec.where}: {e}") from e
    if spec.type == "command":
        return CommandBackend.from_options(spec.options)
    if spec.type == "agent":
        from autocue.loop.agent_backend import agent_backend_from_options

        try:
            return agent_backend_from_options(spec.options)
        except (ValueError, ImportError, AttributeError, TypeError) as e:
            raise LoopConfigError(f"{spec.where}: cannot build the agent backend: {e}") from e
    raise LoopConfigError(f"{spec.where}: unknown backend type {spec.type!r}")


__all__ = ["make_backend"]
