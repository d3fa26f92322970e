"""ExtensionAPI.register_provider: an extension's provider streams its models for the session."""

from __future__ import annotations

import re
from typing import Any

import pytest

from autocue.llm.types import TextContent
from autocue.script import ScriptedProvider, ScriptedResponse
from autocue.session import AgentSession
from autocue.testing import create_test_session, say, when


async def test_a_registered_provider_streams_its_models_and_the_rest_go_to_the_session_provider() -> None:
    ext_provider = ScriptedProvider([ScriptedResponse([TextContent("from the extension")])])
    models: list[Any] = []

    def ext(api: Any) -> None:
        models.extend(api.register_provider("acme", {"streamSimple": ext_provider,
                                                     "models": [{"id": "acme-1", "contextWindow": 1000}]}))

    base = ScriptedProvider([ScriptedResponse([TextContent("from the base")])])
    s = AgentSession(provider=base, tools=[], extension_factories=[ext])
    await s.prompt("a")
    assert s.get_last_assistant_text() == "from the base"
    assert [(m.provider, m.id, m.context_window) for m in models] == [("acme", "acme-1", 1000)]
    await s.set_model(models[0])
    await s.prompt("b")
    assert s.get_last_assistant_text() == "from the extension" and ext_provider.remaining == 0
    await s.dispose()


async def test_a_function_provider_and_unregistering() -> None:
    calls: list[str] = []
    inner = ScriptedProvider([ScriptedResponse([TextContent("fn")])])
    holder: list[Any] = []

    def stream(model: Any, context: Any, options: Any) -> Any:
        calls.append(model.id)
        return inner.stream(model, context, options)

    def ext(api: Any) -> None:
        holder.append(api)
        api.register_provider("fnp", {"stream": stream, "models": ["m1"]})

    s = AgentSession(provider=ScriptedProvider([ScriptedResponse([TextContent("base")])]), tools=[],
                     extension_factories=[ext])
    await s.bind_extensions()
    (m,) = s.router.models()
    await s.set_model(m)
    await s.prompt("x")
    assert calls == ["m1"]
    holder[0].unregister_provider("fnp")
    assert s.router.models() == []
    await s.dispose()


@pytest.mark.parametrize("config, message", [
    ({"models": [{"id": "x"}]}, "give api (and baseUrl) of an HTTP API, or stream"),
    ({"api": "openai-completions", "models": []}, "models must be a non-empty list"),
    ({"api": "openai-completions", "models": ["x"], "colour": 1}, "unknown key(s) ['colour']"),
    ({"api": "openai-completions", "models": ["x"], "oauth": {}}, "oauth is not supported"),
])
def test_a_bad_config_is_a_load_error_naming_the_problem(config: dict[str, Any], message: str) -> None:
    with create_test_session(extension_factories=[lambda api: api.register_provider("p", config)],
                             auto_assert=False) as t:
        (err,) = t.extension_errors
        assert re.search(re.escape(f"register_provider('p'): {message}"), str(err.error))


def test_an_http_provider_config_makes_models_with_its_base_url() -> None:
    got: list[Any] = []
    with create_test_session(extension_factories=[lambda api: got.extend(api.register_provider(
            "mock", {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k",
                     "models": [{"id": "gpt-x"}]}))]) as t:
        t.run_sync(when("hi", [say("hello")]))
    assert [(m.api, m.base_url, m.provider) for m in got] == [("openai-completions", "http://127.0.0.1:9/v1", "mock")]
