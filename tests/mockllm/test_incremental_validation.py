"""A session's requests are checked from the first history item the session has not sent
before: the history cache (``mockllm/history.py``) parses only the appended items and the
API's ``validate`` walks only those; anything else is parsed and checked whole."""

from __future__ import annotations

from typing import Any

import httpx2
import orjson
import pytest
from mockllm_helpers import say

import autocue.mockllm.app as app_module
import autocue.mockllm.history as history_module
from autocue.mockllm import serve
from autocue.script import Script, Turn


def _body(*texts: str, bad: bool = False) -> bytes:
    msgs: list[Any] = [{"role": "system", "content": "sys"}]
    for i, t in enumerate(texts):
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": t})
    if bad:
        msgs.append({"role": "nobody", "content": "x"})
    return orjson.dumps({"model": "m", "messages": msgs, "tools": []})


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``start`` of every request check, in order (the history cache on, even for short bodies)."""
    seen: list[int] = []
    real = app_module.problem

    def spy(api: str, body: dict[str, Any], raw: bytes | None = None, start: int = 0) -> str | None:
        seen.append(start)
        return real(api, body, raw, start)

    monkeypatch.setattr(app_module, "problem", spy)
    monkeypatch.setattr(history_module, "MIN_BYTES", 0)  # these bodies are short
    return seen


def test_only_new_history_items_are_checked(starts: list[int]) -> None:
    with serve(Script([Turn("hi", [say("one"), say("two"), say("three")])], name="inc")) as server:
        def post(raw: bytes, key: str = "k") -> httpx2.Response:
            return httpx2.post(server.base_url + "/v1/chat/completions", content=raw,
                               headers={"authorization": f"Bearer {key}", "content-type": "application/json"})

        assert post(_body("hi")).status_code == 200
        assert post(_body("hi", "one", "more")).status_code == 200
        bad = post(_body("hi", "one", "more", "two", bad=True))
        assert bad.status_code == 400 and "messages[5].role" in bad.json()["error"]["message"]
        # after the refusal: from the last good body on
        assert post(_body("hi", "one", "more", "two", "again")).status_code == 200
        # an edited history: parsed and checked whole (then refused: the script is used up)
        assert post(_body("HI", "one", "more", "two", "again")).status_code == 400
        assert post(_body("hi"), key="other").status_code == 200  # another session: its own
    assert starts == [0, 2, 4, 4, 0, 0]


def test_an_appended_item_too_deep_is_refused(starts: list[int]) -> None:
    with serve(Script([Turn("hi", [say("one"), say("two")])], name="deep")) as server:
        url = server.base_url + "/v1/chat/completions"
        first: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        assert httpx2.post(url, content=orjson.dumps(first)).status_code == 200
        deep: Any = "x"
        for _ in range(120):
            deep = [deep]
        second = {"model": "m", "messages": [*first["messages"], {"role": "user", "content": deep}]}
        r = httpx2.post(url, content=orjson.dumps(second))
        assert r.status_code == 400 and "nested deeper than 100 levels" in r.json()["error"]["message"]
    assert starts == [0, 1]
