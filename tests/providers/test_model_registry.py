"""ModelRegistry: models.json files, env overrides, provider/model selection, routing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_wire_server import Reply, WireServer, sse

from autocue.llm import Context, StreamOptions, UserMessage
from autocue.llm.registry import ModelRegistry, ModelRegistryError


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_builtins_and_env_overrides(tmp_path: Path) -> None:
    env = {
        "AUTOCUE_DIR": str(tmp_path / "home"),
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_API_KEY": "ok",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "ANTHROPIC_API_KEY": "ak",
        "GEMINI_API_KEY": "gk",
        "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:8",
    }
    reg = ModelRegistry(cwd=tmp_path, env=env)
    m = reg.find("openai/gpt-5")
    assert (m.api, m.base_url, m.provider) == ("openai-responses", "http://127.0.0.1:9/v1", "openai")
    assert reg.find("openai-chat/x").api == "openai-completions"
    assert reg.find("anthropic/claude-x").base_url == "http://127.0.0.1:9"
    assert reg.find("google/gemini-2.5-flash").base_url == "http://127.0.0.1:8"
    assert (reg.api_key("openai"), reg.api_key("anthropic"), reg.api_key("google")) == ("ok", "ak", "gk")
    pb = reg.find("autocue/playbook")
    assert pb.api == "scripted" and pb.provider == "autocue"


def test_user_then_project_models_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(
        home / "models.json",
        {
            "providers": {
                "mock": {
                    "base_url": "http://127.0.0.1:1/v1",
                    "api": "openai-completions",
                    "api_key_env": "MOCK_KEY",
                    "headers": {"x-team": "a"},
                    "models": [{"id": "mock-gpt", "context_window": 1000, "max_tokens": 100, "reasoning": True}],
                }
            }
        },
    )
    write(
        tmp_path / "proj" / ".autocue" / "models.json",
        {
            "default_model": "mock/mock-gpt",
            "providers": {
                "mock": {"baseUrl": "http://127.0.0.1:2/v1", "models": [{"id": "other", "contextWindow": 5}]}
            },
        },
    )
    reg = ModelRegistry(cwd=tmp_path / "proj", env={"AUTOCUE_DIR": str(home), "MOCK_KEY": "secret"})
    m = reg.find("mock/mock-gpt")
    assert (m.context_window, m.max_tokens, m.reasoning, m.base_url) == (1000, 100, True, "http://127.0.0.1:2/v1")
    assert reg.find("other").context_window == 5
    assert reg.api_key("mock") == "secret"
    assert reg.resolve_default() == m
    assert reg.providers["mock"].headers == {"x-team": "a"}


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ({"providers": {"p": {"base_url": "x"}}}, "providers.p: 'api' is required"),
        ({"providers": {"p": {"api": "nope"}}}, "unknown api 'nope'"),
        (
            {"providers": {"p": {"api": "openai-completions", "models": [{"id": "m", "context_window": "big"}]}}},
            "providers.p.models[0].context_window: must be a positive integer",
        ),
        ({"providers": {"p": {"api": "openai-completions", "models": [{"name": "m"}]}}}, "needs a string 'id'"),
        ({"providers": {"p": {"api": "openai-completions", "bogus": 1}}}, "unknown key(s) ['bogus']"),
        ({"model": "x"}, "unknown top-level key(s) ['model']"),
    ],
)
def test_bad_models_json_names_file_and_field(tmp_path: Path, doc: object, needle: str) -> None:
    path = write(tmp_path / "models.json", doc)
    reg = ModelRegistry(cwd=tmp_path, env={}, load_files=False)
    with pytest.raises(ModelRegistryError) as e:
        reg.load_file(path)
    assert str(path) in str(e.value) and needle in str(e.value)


def test_invalid_json_has_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text('{\n  "providers": {,}\n}')
    with pytest.raises(ModelRegistryError, match=r"models.json:2:\d+: invalid JSON"):
        ModelRegistry(cwd=tmp_path, env={}, load_files=False).load_file(path)


def test_unknown_models(tmp_path: Path) -> None:
    reg = ModelRegistry(cwd=tmp_path, env={"AUTOCUE_DIR": str(tmp_path)})
    with pytest.raises(ModelRegistryError, match=r"unknown provider 'nope'.*known providers: openai"):
        reg.find("nope/x")
    with pytest.raises(ModelRegistryError, match="unknown model 'gpt-9'; use provider/model"):
        reg.find("gpt-9")


async def test_router_streams_through_the_configured_provider(tmp_path: Path) -> None:
    with WireServer() as server:
        server.push(
            Reply(
                chunks=[
                    sse(
                        None,
                        {"id": "c", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]},
                    ),
                    b"data: [DONE]\n\n",
                ]
            )
        )
        reg = ModelRegistry(cwd=tmp_path, env={"AUTOCUE_DIR": str(tmp_path)}, load_files=False)
        reg.add_provider(
            "mock",
            api="openai-completions",
            base_url=server.url + "/v1",
            api_key="k1",
            headers={"x-extra": "1"},
            models=[{"id": "g"}],
        )
        router = reg.router()
        msg = await router.stream(reg.find("mock/g"), Context(None, [UserMessage("x")]), StreamOptions()).result()
        assert msg.text == "hi"
        assert server.requests[0].headers["authorization"] == "Bearer k1"
        assert server.requests[0].headers["x-extra"] == "1"
        # no playbook registered: a clear error, not an exception
        pb = await router.stream(reg.find("autocue/playbook"), Context(None, []), StreamOptions()).result()
        assert pb.stop_reason == "error" and "--playbook" in (pb.error_message or "")
        await reg.aclose()
