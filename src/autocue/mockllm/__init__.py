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

Names load on first use (``autocue.lazy``), so a submodule (``autocue serve``'s options and
socket) imports without the server.
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.mockllm.app import MockApp, create_app
    from autocue.mockllm.fixture import pytest_fixture
    from autocue.mockllm.incoming import Incoming
    from autocue.mockllm.options import ServerOptions
    from autocue.mockllm.reply import Reply, build_reply
    from autocue.mockllm.server import MockLLMServer, serve
    from autocue.mockllm.sources import ScenarioSourceError
    from autocue.mockllm.state import MockState, Outcome

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.mockllm.app": ["MockApp", "create_app"],
    "autocue.mockllm.fixture": ["pytest_fixture"],
    "autocue.mockllm.incoming": ["Incoming"],
    "autocue.mockllm.options": ["ServerOptions"],
    "autocue.mockllm.reply": ["Reply", "build_reply"],
    "autocue.mockllm.server": ["MockLLMServer", "serve"],
    "autocue.mockllm.sources": ["ScenarioSourceError"],
    "autocue.mockllm.state": ["MockState", "Outcome"],
})

__all__ = [
    "Incoming", "MockApp", "MockLLMServer", "MockState", "Outcome", "Reply", "ScenarioSourceError",
    "ServerOptions", "build_reply", "create_app", "pytest_fixture", "serve",
]
