"""A wire API added in one file (``tests/_support/toy_api.py``) and registered at run time is
served (whole and streamed), validated (a bad body gets a 400 in its error shape), journaled,
recorded through ``autocue record``'s proxy in front of a mock server, and replayed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest
import toy_api

from autocue.catalog import apis as catalog
from autocue.mockllm import serve
from autocue.mockllm.validate import problem
from autocue.mockllm.wire import registry
from autocue.record import RecordingServer
from autocue.scenario import load_scenario

UPSTREAM = """\
name: toy-loop
initialPrompt: "hello toy"
timeline:
  - llmResponse:
      - assistant: [[0, "Looking."]]
      - agentToolUse: {toolName: read, toolCallId: toy_1, args: {path: a.txt}}
  - llmResponse:
      - assistant: [[0, "It says hi."]]
"""
TOOLS = [{"name": "read"}]
FIRST = {"model": "toy-1", "turns": [{"role": "user", "text": "hello toy"}], "tools": TOOLS}
SECOND = {"model": "toy-1", "stream": True, "tools": TOOLS,
          "turns": [{"role": "user", "text": "hello toy"}, {"role": "bot", "text": "Looking."},
                    {"role": "tool", "text": "hi"}]}


@pytest.fixture
def toy() -> Iterator[registry.WireApi]:
    api = registry.register(toy_api.ENTRY)
    yield api
    registry.unregister("toy")


def _post(base: str, body: Any, key: str) -> httpx2.Response:
    return httpx2.post(base + toy_api.PATH, headers={"authorization": f"Bearer {key}"}, content=orjson.dumps(body))


def _conversation(base: str, key: str) -> list[Any]:
    """The two replies: the first whole (JSON), the second streamed (JSON lines)."""
    first = _post(base, FIRST, key)
    assert first.status_code == 200, first.text
    assert first.headers["content-type"].startswith("application/json")
    second = _post(base, SECOND, key)
    assert second.status_code == 200, second.text
    assert second.headers["content-type"].startswith(toy_api.MEDIA)
    return [first.json(), [orjson.loads(line) for line in second.content.splitlines()]]


EXPECTED = [{"say": "Looking.", "calls": [{"id": "toy_1", "name": "read", "args": {"path": "a.txt"}}],
             "stop": "calls"},
            [{"say": "It says hi."}, {"stop": "done"}]]


def test_a_toy_api_is_served_validated_journaled_recorded_and_replayed(toy: registry.WireApi,
                                                                       tmp_path: Path) -> None:
    assert "toy" in catalog.api_names() and catalog.label("toy") == "Toy Chat"
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    out = tmp_path / "rec"
    with serve(upstream) as up:
        # served, whole and streamed
        assert _conversation(up.base_url, "direct") == EXPECTED
        # validated: a bad body gets a 400 in the toy's error shape, naming the key
        bad = _post(up.base_url, {"turns": [{"role": "user", "text": 3}]}, "direct")
        assert bad.status_code == 400
        assert bad.json() == {"toy_error": {"status": 400, "message": "malformed Toy Chat request: turns[0].text "
                                                                      "must be a string, got 3"}}
        # a path of the toy's that is no endpoint: a 404 in its shape too
        missing = httpx2.post(up.base_url + "/v1/toy/nothing", json=FIRST)
        assert missing.status_code == 404 and "toy_error" in missing.json()
        # journaled (a refused body reaches no session, so it is not)
        journal = httpx2.get(up.base_url + "/_autocue/sessions/direct/requests").json()["requests"]
        assert [(q["api"], q["status"], q["last"]["role"]) for q in journal] == [
            ("toy", 200, "user"), ("toy", 200, "tool")]
        assert journal[0]["tools"] == ["read"] and journal[1]["stream"] is True and journal[0]["model"] == "toy-1"
        # recorded: through the recording proxy in front of the mock server
        with RecordingServer(upstream=up.base_url, out_dir=out) as rec:
            assert _conversation(rec.base_url, "recorder") == EXPECTED
            files = rec.files
        assert up.session("recorder")["errors"] == []
    assert len(files) == 1, files
    sc = load_scenario(files[0])
    assert sc.warnings == [] and sc.initial_prompt == "hello toy"
    assert [len(t.steps) for t in sc.compile().turns] == [2]
    # replayed: the recording, served, gives the same replies
    with serve(files[0]) as replay:
        assert _conversation(replay.base_url, "replayer") == EXPECTED
        status = replay.session("replayer")
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (2, 0), status


def test_an_unregistered_api_is_gone(toy: registry.WireApi) -> None:
    registry.unregister("toy")
    assert registry.find("toy") is None and "toy" not in catalog.api_names()
    with serve(load_scenario_text()) as up:
        r = httpx2.post(up.base_url + toy_api.PATH, json=FIRST)
    assert r.status_code == 404 and "toy_error" not in r.json()


def load_scenario_text() -> Any:
    from autocue.scenario import load_scenario_text as load

    return load(UPSTREAM)


BAD_FIRST = {
    "chat": {"model": "m", "messages": [{"role": "nobody", "content": "x"}, {"role": "user", "content": "hi"}]},
    "responses": {"model": "m", "input": [{"role": "nobody", "content": "x"}, {"role": "user", "content": "hi"}]},
    "anthropic": {"model": "m", "messages": [{"role": "nobody", "content": "x"}, {"role": "user", "content": "hi"}]},
    "gemini": {"contents": [{"parts": [{"nothing": 1}]}, {"role": "user", "parts": [{"text": "hi"}]}]},
    "toy": {"turns": [{"role": "nobody", "text": "x"}, {"role": "user", "text": "hi"}]},
}


@pytest.mark.parametrize("api", list(BAD_FIRST))
def test_validation_starts_at_the_first_history_item_not_seen(api: str, toy: registry.WireApi) -> None:
    body = BAD_FIRST[api]
    wire = registry.wire_api(api)
    key = wire.history_key
    assert problem(wire, body) is not None and f"{key}[0]" in (problem(wire, body) or "")
    assert problem(wire, body, start=1) is None  # the first item was checked by an earlier request
    body = {**body, "stream": "yes"} if api != "gemini" else {**body, "generationConfig": 1}
    assert problem(wire, body, start=2) is not None  # the top-level fields are always checked
