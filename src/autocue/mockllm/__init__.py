"""``autocue.mockllm``: a mock LLM API server that plays scripts to any agent over HTTP.

It speaks OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini
``generateContent``, streaming and not, protocol-exact (the official SDKs' stream helpers
accept it), and plays ``autocue.script.Script`` objects: compiled YAML scenarios or scripts
built in Python.

Public surface:

* ``serve(source, **options)`` — context manager: a started server on 127.0.0.1, a free
  port, in a background thread (``server.base_url``, ``server.openai_base_url``,
  ``server.sessions()``, ``server.assert_all_consumed()``).
* ``MockLLMServer`` — the same, with ``start()`` / ``stop()``.
* ``pytest_fixture`` — a pytest fixture function (``from autocue.mockllm import
  pytest_fixture as mock_llm``); it is not registered as a plugin.
* ``MockState`` / ``ServerOptions`` / ``create_app`` — the HTTP-independent core and the
  ASGI app, for embedding.

CLI: ``autocue serve [SCENARIO_OR_DIR ...] [--host] [--port] [--speed] [--strict-tools]
[--record-dir DIR] [--profile NAME] [--admin-token TOKEN]``. Docs: ``docs/mock-server.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autocue.mockllm.app import MockApp, create_app
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.reply import Reply, build_reply
from autocue.mockllm.server import MockLLMServer, serve
from autocue.mockllm.sources import ScenarioSourceError
from autocue.mockllm.state import MockState, Outcome, ServerOptions

if TYPE_CHECKING:  # loaded on first use (see __getattr__); mypy sees the real type
    from autocue.mockllm.fixture import mock_llm as pytest_fixture


def __getattr__(name: str) -> Any:
    if name in ("pytest_fixture", "mock_llm"):
        from autocue.mockllm.fixture import mock_llm

        return mock_llm
    raise AttributeError(f"module 'autocue.mockllm' has no attribute {name!r}")


__all__ = [
    "Incoming", "MockApp", "MockLLMServer", "MockState", "Outcome", "Reply", "ScenarioSourceError",
    "ServerOptions", "build_reply", "create_app", "pytest_fixture", "serve",
]
