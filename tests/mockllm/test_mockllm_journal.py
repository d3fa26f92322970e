"""The request journal: every request of a session, bounded, through the admin guard."""

from __future__ import annotations

import httpx2
from mockllm_helpers import say

from autocue.mockllm import serve
from autocue.script import Script, Turn


def _script(n: int = 3) -> Script:
    return Script([Turn("hi", [say(f"r{i}") for i in range(n)])], name="j")


def _chat(base: str, text: str, key: str = "k") -> httpx2.Response:
    return httpx2.post(base + "/v1/chat/completions", headers={"authorization": f"Bearer {key}"},
                       json={"model": "gpt-x", "messages": [{"role": "system", "content": "sys"},
                                                             {"role": "user", "content": text}],
                             "tools": [{"type": "function", "function": {"name": "read", "parameters": {}}}]})


def test_journal_keeps_each_request_with_its_answer_and_redacts_keys() -> None:
    with serve(_script(2)) as server:
        base = server.base_url
        for text in ("hi", "again", "third"):
            _chat(base, text)
        r = httpx2.get(base + "/_autocue/sessions/k/requests")
        assert r.status_code == 200, r.text
        got = r.json()
        assert (got["session"], got["count"], got["dropped"]) == ("k", 3, 0)
        reqs = got["requests"]
        assert [q["n"] for q in reqs] == [1, 2, 3]
        assert [q["status"] for q in reqs] == [200, 200, 400]
        assert [q["reply"] for q in reqs] == [1, 2, None]
        assert [q["outcome"] for q in reqs] == ["reply", "reply", "exhausted"]
        assert reqs[1]["last"] == {"role": "user", "text": "again", "toolResult": ""}
        assert reqs[0]["tools"] == ["read"] and reqs[0]["model"] == "gpt-x" and reqs[0]["api"] == "chat"
        assert reqs[2]["body"]["messages"][1]["content"] == "third"
        assert reqs[0]["headers"]["authorization"] == "<redacted>"
        status = server.session("k")
        assert [(q["n"], q["last"]["text"]) for q in status["journal"]] == [(1, "hi"), (2, "again"), (3, "third")]
        assert "body" not in status["journal"][0]
        assert server.requests("k")[0]["body"]["model"] == "gpt-x"
        assert httpx2.get(base + "/_autocue/sessions/nope/requests").status_code == 404
        httpx2.post(base + "/_autocue/sessions/k/reset", json={})
        _chat(base, "hi")
        assert [q["n"] for q in server.requests("k")] == [1]


def test_journal_is_bounded_per_session() -> None:
    with serve(_script(8), journal_size=3) as server:
        for i in range(5):
            _chat(server.base_url, f"m{i}")
        got = httpx2.get(server.base_url + "/_autocue/sessions/k/requests").json()
        assert (got["count"], got["dropped"], got["cap"]) == (5, 2, 3)
        assert [q["last"]["text"] for q in got["requests"]] == ["m2", "m3", "m4"]
        assert server.session("k")["journal_dropped"] == 2
    with serve(_script(2), journal_size=0) as server:
        _chat(server.base_url, "hi")
        assert server.requests("k") == []


def test_journal_route_passes_the_admin_guard() -> None:
    with serve(_script(), admin_token="t0k") as server:
        _chat(server.base_url, "hi")
        url = server.base_url + "/_autocue/sessions/k/requests"
        assert httpx2.get(url).status_code == 401
        assert httpx2.get(url, headers={"origin": "https://evil.example", "authorization": "Bearer t0k"}
                          ).status_code == 403
        assert httpx2.get(url, headers={"authorization": "Bearer t0k"}).json()["count"] == 1


def test_journal_keeps_http_bodies_as_bytes_and_parses_them_when_asked() -> None:
    """A long conversation's parsed bodies are millions of objects the cyclic GC would walk on
    every full pass: the journal keeps the raw bytes (untracked) and parses them on request."""
    import gc

    with serve(_script(2)) as server:
        _chat(server.base_url, "hi")
        entry = server.state.sessions["k"].journal.entries[0]
        assert entry.req.body == {} and entry.req.raw is not None and not gc.is_tracked(entry.req.raw)
        got = server.requests("k")[0]
        assert got["body"]["messages"][1] == {"role": "user", "content": "hi"}
        assert got["tools"] == ["read"] and got["last"]["text"] == "hi"
        assert server.session("k")["journal"][0]["last"]["text"] == "hi"
