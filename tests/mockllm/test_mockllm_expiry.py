"""Sessions expire (idle TTL, size bound), an admin can pin one, and an expired key starts afresh."""

from __future__ import annotations

import time

import httpx2
import pytest
from mockllm_helpers import say

from autocue.mockllm import serve
from autocue.mockllm.options import MAX_PINS
from autocue.script import Script, Turn


def _script() -> Script:
    return Script([Turn("hi", [say("first"), say("second")])], name="x")


def _reply(base: str, key: str) -> str:
    r = httpx2.post(base + "/v1/chat/completions", headers={"authorization": f"Bearer {key}"},
                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 200, r.text
    text: str = r.json()["choices"][0]["message"]["content"]
    return text


def test_size_bound_forgets_the_least_recently_used_session() -> None:
    with serve(_script(), max_sessions=3) as server:
        base = server.base_url
        for key in ("a", "b", "c"):
            assert _reply(base, key) == "first"
        assert _reply(base, "a") == "second"  # a is now the most recently used: b goes first
        assert _reply(base, "d") == "first"
        assert sorted(s["key"] for s in server.sessions()) == ["a", "c", "d"]
        assert server.state.expired == 1
        assert _reply(base, "b") == "first"  # forgotten: answers like a fresh key
        assert sorted(s["key"] for s in server.sessions()) == ["a", "b", "d"]


def test_idle_sessions_expire_after_the_ttl_and_then_answer_like_a_fresh_key() -> None:
    with serve(_script(), session_ttl=1.0) as server:  # above a loaded machine's time between two requests
        base = server.base_url
        assert _reply(base, "k") == "first"
        assert _reply(base, "k") == "second"
        time.sleep(1.3)
        assert server.sessions() == []  # the admin view expires idle sessions too
        assert _reply(base, "k") == "first"
        assert server.session("k")["consumed"] == 1
        assert server.session("k")["requests"] == 1


def test_a_request_within_the_ttl_keeps_the_session() -> None:
    with serve(_script(), session_ttl=5.0) as server:  # far above a loaded machine's request time
        base = server.base_url
        assert _reply(base, "k") == "first"
        time.sleep(0.2)
        _reply(base, "other")  # a new session sweeps, but k is not idle long enough yet
        assert _reply(base, "k") == "second"


@pytest.mark.slow
def test_an_admin_pin_keeps_a_session_past_the_ttl_and_the_size_bound() -> None:
    with serve(_script(), session_ttl=1.0, max_sessions=2) as server:
        base = server.base_url
        r = httpx2.post(base + "/_autocue/sessions/keep/pin", json={})  # before the session exists
        assert r.status_code == 200, r.text
        assert r.json() == {"session": "keep", "pinned": True, "sessions": 0}
        assert _reply(base, "keep") == "first"
        for key in ("a", "b", "c"):
            _reply(base, key)
        assert sorted(s["key"] for s in server.sessions()) == ["b", "c", "keep"]  # a pinned one does not count
        assert server.session("keep")["pinned"] is True
        time.sleep(1.2)
        assert [s["key"] for s in server.sessions()] == ["keep"]
        assert _reply(base, "keep") == "second"
        r = httpx2.delete(base + "/_autocue/sessions/keep/pin")
        assert r.json() == {"session": "keep", "pinned": False, "sessions": 1}
        time.sleep(1.2)
        assert server.sessions() == []


def test_pin_goes_through_the_admin_guard() -> None:
    with serve(_script(), admin_token="secret") as server:
        url = server.base_url + "/_autocue/sessions/k/pin"
        r = httpx2.post(url, json={})
        assert r.status_code == 401 and r.json()["error"]["code"] == "admin_token_required"
        r = httpx2.post(url, json={}, headers={"origin": "http://evil.example"})
        assert r.status_code in (401, 403)
        r = httpx2.post(url, content=b"{}", headers={"authorization": "Bearer secret", "content-type": "text/plain"})
        assert r.status_code == 415
        assert server.state.pinned == set()
        r = httpx2.post(url, json={}, headers={"authorization": "Bearer secret"})
        assert r.status_code == 200 and server.state.pinned == {"k"}


def test_no_bound_and_no_ttl_keep_every_session() -> None:
    with serve(_script(), session_ttl=0, max_sessions=0) as server:
        for i in range(30):
            _reply(server.base_url, f"k{i}")
        assert len(server.sessions()) == 30 and server.state.expired == 0


def test_pin_from_python_and_the_status_shows_idle_time() -> None:
    with serve(_script(), max_sessions=1) as server:
        assert server.pin("a") == 0
        _reply(server.base_url, "a")
        _reply(server.base_url, "b")  # over the bound, but a is pinned: b stays as the newest
        assert sorted(s["key"] for s in server.sessions()) == ["a", "b"]
        time.sleep(0.05)
        assert server.session("a")["idle"] >= 0.05 and server.session("a")["pinned"] is True
        assert server.pin("a", False) == 1
        _reply(server.base_url, "c")
        assert [s["key"] for s in server.sessions()] == ["c"]


def test_pins_are_bounded_like_sessions() -> None:
    """Issue 27 req 12c: every POST .../pin added a key to an unbounded set (a pinned session is never expired)."""
    with serve(_script()) as server:
        for i in range(MAX_PINS):  # in-process: the bound, not the HTTP round trips, is under test
            server.pin(f"k{i}")
        r = httpx2.post(server.base_url + "/_autocue/sessions/one-too-many/pin", json={})
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "too_many_pins"
        assert f"{MAX_PINS} sessions are pinned already" in r.json()["error"]["message"]
        assert len(server.state.pinned) == MAX_PINS and "one-too-many" not in server.state.pinned
        assert httpx2.post(server.base_url + "/_autocue/sessions/k7/pin", json={}).status_code == 200  # pinned already
        assert httpx2.delete(server.base_url + "/_autocue/sessions/k7/pin").status_code == 200
        r = httpx2.post(server.base_url + "/_autocue/sessions/one-too-many/pin", json={})
        assert r.status_code == 200 and r.json()["pinned"] is True
        assert len(server.state.pinned) == MAX_PINS
