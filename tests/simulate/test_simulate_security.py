"""``autocue simulate`` is as closed as the mock server's admin API (issue 27, requirement 4):
a real server on loopback, real HTTP requests shaped as a web page on another origin, a
DNS-rebinding page, an HTML form or a flood would send them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autocue.mockllm.options import DEFAULT_MAX_BODY, MAX_SESSIONS, SESSION_TTL
from autocue.scenario import load_scenario_text
from autocue.simulate import SimulationServer

PLAIN = """
name: plain
initialPrompt: Say hello
timeline:
  - assistant: [[100, hello]]
  - complete: true
"""
# Ten minutes of scripted time: at speed 1 a session of it is still running when the test ends.
SLOW = """
name: slow
timeline:
  - assistant: [[600000, still thinking]]
  - complete: true
"""
SESSIONS = "/api/v1/sessions"
_WORD = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=20)
LOCAL_HOSTS = ["localhost", "127.0.0.1", "127.9.9.9", "[::1]", "localhost."]
FOREIGN_HOSTS = ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "0.0.0.0", "[::1", "a:b:c"]
LOCAL_ORIGINS = ["null", "http://localhost", "https://127.0.0.1:3000", "http://[::1]:1"]
FOREIGN_ORIGINS = ["https://evil.example", "http://127.0.0.1.evil.example", "file://", "Null", "*", "",
                   "http://localhost:99999", "ftp://localhost"]


@pytest.fixture
def server() -> Iterator[SimulationServer]:
    with SimulationServer([load_scenario_text(PLAIN), load_scenario_text(SLOW)], speed=0) as s:
        yield s


def post(url: str, body: object = None, **kw: object) -> httpx2.Response:
    return httpx2.post(url + SESSIONS, json={"scenario": "plain"} if body is None else body, timeout=10, **kw)


def refused(r: httpx2.Response, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("origin", ["https://evil.example", "http://127.0.0.1.evil.example:8000",
                                    "http://localhost.evil.example", "file://", "chrome-extension://abc"])
def test_foreign_origin_is_refused_on_every_route(server: SimulationServer, origin: str) -> None:
    refused(post(server.url, headers={"Origin": origin}), 403, f"Origin {origin!r}")
    for path in ("/api/v1/scenarios", SESSIONS, "/api/v1/schema"):
        refused(httpx2.get(server.url + path, headers={"Origin": origin}, timeout=10), 403, "not a loopback page")
    assert server.state.sessions == {}


def test_foreign_origin_preflight_gets_no_cors(server: SimulationServer) -> None:
    r = httpx2.options(server.url + SESSIONS, timeout=10, headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    refused(r, 403, "not a loopback page")


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "[::1"])
def test_foreign_host_is_refused_dns_rebinding(server: SimulationServer, host: str) -> None:
    r = httpx2.get(server.url + "/api/v1/scenarios", headers={"Host": host}, timeout=10)
    refused(r, 403, "DNS-rebinding")
    refused(post(server.url, headers={"Host": host}), 403, f"Host {host!r}")
    assert server.state.sessions == {}
    for local in ("localhost", f"localhost:{server.port}", f"127.0.0.1:{server.port}", "127.0.0.2", None):
        r = post(server.url, headers={"Host": local} if local else {})  # scripts and SDKs: no Origin
        assert r.status_code == 201, (local, r.text)
        assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x",
                                   None])
def test_post_needs_a_json_content_type(server: SimulationServer, ctype: str | None) -> None:
    headers = {"Content-Type": ctype} if ctype else {}
    r = httpx2.post(server.url + SESSIONS, content=b'{"scenario": "plain"}', headers=headers, timeout=10)
    refused(r, 415, "needs 'Content-Type: application/json'")
    assert server.state.sessions == {}


def test_oversize_body_gets_413() -> None:
    with SimulationServer([load_scenario_text(PLAIN)], speed=0, max_body=1024) as s:
        refused(post(s.url, {"scenario": "plain", "pad": "x" * 2000}), 413, "limit of 1024 bytes")

        def chunks() -> Iterator[bytes]:  # no Content-Length: the cap holds while reading
            yield b'{"scenario": "plain", "pad": "'
            yield b"x" * 2000
            yield b'"}'

        r = httpx2.post(s.url + SESSIONS, content=chunks(), headers={"Content-Type": "application/json"}, timeout=10)
        refused(r, 413, "limit of 1024 bytes")
        assert s.state.sessions == {}
        assert post(s.url, {"scenario": "plain", "pad": "x" * 900}).status_code == 201


def test_defaults_are_the_mock_servers() -> None:
    with SimulationServer([load_scenario_text(PLAIN)], speed=0) as s:
        assert (s.state.max_body, s.state.session_ttl, s.state.max_sessions) == (DEFAULT_MAX_BODY, SESSION_TTL,
                                                                                MAX_SESSIONS)


@pytest.mark.parametrize("origin", ["null", "http://127.0.0.1:5173", "http://localhost:3000", "http://[::1]:8080",
                                    "https://localhost"])
def test_loopback_pages_and_file_pages_still_work(server: SimulationServer, origin: str) -> None:
    r = post(server.url, headers={"Origin": origin})
    assert r.status_code == 201, r.text
    assert r.headers["access-control-allow-origin"] == origin
    sid = r.json()["id"]
    pre = httpx2.options(server.url + SESSIONS, timeout=10, headers={
        "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
    assert pre.status_code == 200
    assert pre.headers["access-control-allow-origin"] == origin
    with httpx2.stream("GET", f"{server.url}{SESSIONS}/{sid}/events", headers={"Origin": origin}, timeout=10) as r:
        assert r.status_code == 200
        assert r.headers["access-control-allow-origin"] == origin
        body = r.read()
    assert b'"type":"session.end"' in body


@pytest.mark.slow
def test_running_sessions_past_the_cap_are_refused_with_429() -> None:
    with SimulationServer([load_scenario_text(SLOW)], speed=1.0, max_sessions=3) as s:
        ids = [post(s.url, {"scenario": "slow"}).json()["id"] for _ in range(3)]
        for _ in range(5):
            refused(post(s.url, {"scenario": "slow"}), 429, "--max-sessions 3")
        assert sorted(s.state.sessions) == sorted(ids)
        assert all(httpx2.get(f"{s.url}{SESSIONS}/{sid}", timeout=10).status_code == 200 for sid in ids)


def test_finished_sessions_make_room_so_memory_is_bounded_by_the_cap() -> None:
    with SimulationServer([load_scenario_text(PLAIN)], speed=0, max_sessions=5) as s:
        for _ in range(60):
            r = post(s.url)
            assert r.status_code == 201, r.text
            assert len(s.state.sessions) <= 5
            deadline = time.monotonic() + 5  # speed 0: its events are released at once, then it can make room
            while not s.state.sessions[r.json()["id"]].done and time.monotonic() < deadline:
                time.sleep(0.01)
        assert len(s.state.sessions) == 5
        assert s.state.expired == 55


@pytest.mark.slow
def test_idle_session_expires_after_the_ttl_but_not_while_followed() -> None:
    ttl = 1.0
    with SimulationServer([load_scenario_text(PLAIN), load_scenario_text(SLOW)], speed=1.0, session_ttl=ttl) as s:
        followed = post(s.url, {"scenario": "slow"}).json()["id"]
        with httpx2.stream("GET", f"{s.url}{SESSIONS}/{followed}/events", timeout=10) as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()  # kept: dropping the iterator would close the stream
            assert next(lines).startswith("retry:")
            idle = post(s.url).json()["id"]
            assert httpx2.get(f"{s.url}{SESSIONS}/{idle}", timeout=10).status_code == 200
            used = time.monotonic()
            time.sleep(ttl + 0.3)
            assert httpx2.get(f"{s.url}{SESSIONS}/{idle}", timeout=10).status_code == 404
            assert time.monotonic() - used < ttl + 2  # forgotten after the TTL, not by waiting longer
            assert httpx2.get(f"{s.url}{SESSIONS}/{followed}", timeout=10).status_code == 200
        assert idle not in s.state.sessions and followed in s.state.sessions


@st.composite
def probes(draw: st.DrawFn) -> tuple[str, str, dict[str, str], bytes, bool]:
    """A request as a web page, a rebinding page, a form or a script would send it, and whether
    it may get in (loopback ``Host`` and ``Origin``)."""
    local_host = draw(st.booleans())
    host = draw(st.sampled_from(LOCAL_HOSTS) if local_host else st.sampled_from(FOREIGN_HOSTS) | _WORD.map(
        lambda w: w + ".example"))
    port = draw(st.sampled_from(["", ":1", ":65535"]))
    origin = draw(st.none() | st.sampled_from(LOCAL_ORIGINS) | st.sampled_from(FOREIGN_ORIGINS)
                  | _WORD.map(lambda w: "http://" + w))
    headers = {"host": host + port}
    if origin is not None:
        headers["origin"] = origin
    ctype = draw(st.none() | st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                              "application/problem+json; charset=utf-8"]) | _WORD)
    if ctype is not None:
        headers["content-type"] = ctype
    method, path = draw(st.sampled_from([("POST", SESSIONS), ("GET", SESSIONS), ("GET", "/api/v1/scenarios"),
                                         ("GET", SESSIONS + "/sim-1/events"), ("OPTIONS", SESSIONS),
                                         ("POST", "/api/v1/scenarios")]))
    if method == "OPTIONS":
        headers["access-control-request-method"] = draw(st.sampled_from(["POST", "GET", "DELETE"]))
    body = draw(st.sampled_from([b'{"scenario": "plain"}', b"", b"scenario=plain", b"{", b"[]"]) | st.binary(
        max_size=40))
    allowed = local_host and (origin is None or origin in LOCAL_ORIGINS)
    return method, path, headers, body, allowed


@pytest.fixture(scope="module")
def probed() -> Iterator[SimulationServer]:
    with SimulationServer([load_scenario_text(PLAIN)], speed=0, max_sessions=20) as s:
        yield s


@pytest.mark.slow
@given(probe=probes())
def test_probe_foreign_callers_never_get_in_and_nothing_is_a_5xx(
        probed: SimulationServer, probe: tuple[str, str, dict[str, str], bytes, bool]) -> None:
    method, path, headers, body, allowed = probe
    before = set(probed.state.sessions)
    with httpx2.Client(timeout=10) as client:
        r = client.request(method, probed.url + path, headers=headers, content=body)
        r.read() if path.endswith("/events") and r.status_code == 200 else None
    assert r.status_code < 500, (probe, r.status_code, r.text[:300])
    assert r.headers.get("access-control-allow-origin") in (None, headers.get("origin")), probe
    if not allowed:
        assert r.status_code == 403 and "request refused" in r.json()["error"], (probe, r.text[:300])
        assert "access-control-allow-origin" not in r.headers
        assert set(probed.state.sessions) <= before  # nothing was created
    assert len(probed.state.sessions) <= 20
