"""The simulation REST API on a real loopback server, read by real HTTP clients (httpx2)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from autocue.scenario import load_scenario, load_scenario_text
from autocue.simulate import SimulationServer, scenario_events, validate_event
from autocue.simulate.client import StreamError, iter_events, parse_frames

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "simulate" / "npm_test.yaml"
PLAIN = """
name: plain
timeline:
  - assistant: [[100, one], [100, two], [100, three], [100, four]]
  - complete: true
"""


@pytest.fixture
def server() -> Iterator[SimulationServer]:
    with SimulationServer([load_scenario(FIXTURE), load_scenario_text(PLAIN)], speed=0) as s:
        yield s


def start(url: str, name: str) -> str:
    r = httpx2.post(url + "/api/v1/sessions", json={"scenario": name})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def raw_frames(url: str, headers: dict[str, str] | None = None) -> list[tuple[str | None, str]]:
    with httpx2.stream("GET", url, headers=headers or {}, timeout=10) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        return list(parse_frames(r.iter_lines()))


def test_session_streams_every_event_with_ids_then_closes(server: SimulationServer) -> None:
    sid = start(server.url, "npm_test")
    frames = raw_frames(f"{server.url}/api/v1/sessions/{sid}/events")
    expected = scenario_events(load_scenario(FIXTURE))
    assert [fid for fid, _ in frames] == [str(e["id"]) for e in expected]
    got = [httpx2.Response(200, content=data).json() for _, data in frames]
    assert got == expected
    for e in got:
        validate_event(e)
    info = httpx2.get(f"{server.url}/api/v1/sessions/{sid}").json()
    assert (info["status"], info["done"], info["events"], info["lastEventId"]) == ("merged", True, len(expected),
                                                                                   len(expected))


def test_last_event_id_resumes_after_that_event(server: SimulationServer) -> None:
    sid = start(server.url, "npm_test")
    url = f"{server.url}/api/v1/sessions/{sid}/events"
    ids = [int(f) for f, _ in raw_frames(url, {"Last-Event-ID": "7"}) if f]
    total = len(scenario_events(load_scenario(FIXTURE)))
    assert ids == list(range(8, total + 1))
    assert [int(f) for f, _ in raw_frames(url + "?lastEventId=19") if f] == [20]


def test_several_clients_follow_one_session_at_speed(server: SimulationServer) -> None:
    server.state.speed = 0.2  # 2550 ms of scenario in about half a second
    sid = start(server.url, "npm_test")
    results: list[list[int]] = [[] for _ in range(4)]

    def follow(i: int) -> None:
        results[i] = [e["id"] for e in iter_events(f"{server.url}/api/v1/sessions/{sid}")]

    threads = [threading.Thread(target=follow, args=(i,)) for i in range(4)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    elapsed = time.monotonic() - t0
    total = len(scenario_events(load_scenario(FIXTURE)))
    assert results == [list(range(1, total + 1))] * 4
    assert 0.4 <= elapsed < 5, elapsed  # 2550 ms × 0.2 = 510 ms of waiting (minus connection time)


def test_dropped_streams_resume_without_gaps_or_duplicates(server: SimulationServer) -> None:
    server.state.speed = 1.0
    sid = start(server.url, "plain")  # an event every 100 ms
    seen: list[int] = []
    for e in iter_events(f"{server.url}/api/v1/sessions/{sid}"):
        seen.append(e["id"])
        if e["type"] == "assistant" and e["text"] in ("one", "three"):
            server.drop_clients()  # cut every open stream: the client reconnects with Last-Event-ID
    assert seen == list(range(1, 8))


def test_listing_hides_completed_sessions_unless_merged(server: SimulationServer) -> None:
    merged = start(server.url, "npm_test")
    completed = start(server.url, "plain")
    for sid in (merged, completed):
        list(iter_events(f"{server.url}/api/v1/sessions/{sid}"))
    shown = {s["id"]: s["status"] for s in httpx2.get(server.url + "/api/v1/sessions").json()["items"]}
    assert shown == {merged: "merged"}
    every = {s["id"]: s["status"] for s in httpx2.get(server.url + "/api/v1/sessions?all=1").json()["items"]}
    assert every == {merged: "merged", completed: "completed"}


def test_running_session_is_listed_and_describes_its_progress(server: SimulationServer) -> None:
    server.state.speed = 10.0
    sid = start(server.url, "plain")
    items = httpx2.get(server.url + "/api/v1/sessions").json()["items"]
    assert [(s["id"], s["status"], s["done"]) for s in items] == [(sid, "running", False)]
    assert items[0]["totalEvents"] == 7 and items[0]["durationMs"] == 400


def test_bad_requests_answer_one_clear_error(server: SimulationServer) -> None:
    r = httpx2.post(server.url + "/api/v1/sessions", json={"scenario": "nope"})
    assert r.status_code == 404
    assert r.json() == {"error": "POST /api/v1/sessions: no scenario 'nope' (loaded: npm_test, plain)"}
    r = httpx2.post(server.url + "/api/v1/sessions", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "the body is not JSON" in r.json()["error"]
    r = httpx2.post(server.url + "/api/v1/sessions", json={})
    assert r.status_code == 400 and "one of npm_test, plain" in r.json()["error"]
    r = httpx2.get(server.url + "/api/v1/sessions/sim-0/events")
    assert r.status_code == 404 and "no session 'sim-0'" in r.json()["error"]
    sid = start(server.url, "plain")
    r = httpx2.get(f"{server.url}/api/v1/sessions/{sid}/events", headers={"Last-Event-ID": "x"})
    assert r.status_code == 400 and "Last-Event-ID 'x' is not an event id" in r.json()["error"]
    with pytest.raises(StreamError, match="HTTP 404"):
        list(iter_events(server.url + "/api/v1/sessions/sim-0"))


def test_cors_lets_a_page_from_a_file_follow_the_stream(server: SimulationServer) -> None:
    sid = start(server.url, "plain")
    r = httpx2.get(f"{server.url}/api/v1/sessions/{sid}", headers={"Origin": "null"})
    assert r.headers["access-control-allow-origin"] == "null" and r.headers["access-control-expose-headers"] == "*"
    assert "access-control-allow-origin" not in httpx2.get(f"{server.url}/api/v1/sessions/{sid}").headers


def test_cors_preflight_allows_get_and_post_with_any_header(server: SimulationServer) -> None:
    def preflight(method: str, **more: str) -> httpx2.Response:
        return httpx2.options(server.url + "/api/v1/sessions", headers={
            "Origin": "null", "Access-Control-Request-Method": method, **more})

    r = preflight("POST", **{"Access-Control-Request-Headers": "content-type, x-custom"})
    assert (r.status_code, r.text) == (200, "OK")
    assert r.headers["access-control-allow-origin"] == "null"
    assert r.headers["access-control-allow-methods"] == "GET, POST"
    assert r.headers["access-control-allow-headers"] == "content-type, x-custom"
    assert r.headers["access-control-max-age"] == "600"
    r = preflight("DELETE")
    assert (r.status_code, r.text) == (400, "Disallowed CORS method")
    r = preflight("GET", **{"Access-Control-Request-Private-Network": "true"})
    assert (r.status_code, r.text) == (400, "Disallowed CORS private-network")
    r = httpx2.options(server.url + "/api/v1/sessions")  # no Origin: not a preflight
    assert r.status_code == 405 and r.headers["allow"] == "POST"


def test_schema_and_scenarios_endpoints(server: SimulationServer) -> None:
    schema = httpx2.get(server.url + "/api/v1/schema").json()
    assert schema["title"] == "autocue session event, version 1"
    names = [s["name"] for s in httpx2.get(server.url + "/api/v1/scenarios").json()["items"]]
    assert names == ["npm_test", "plain"]


def test_loop_replays_the_session_with_growing_ids() -> None:
    with SimulationServer([load_scenario_text(PLAIN)], speed=0.05, loop=True) as server:
        sid = start(server.url, "plain")
        got: list[dict] = []
        with httpx2.stream("GET", f"{server.url}/api/v1/sessions/{sid}/events", timeout=10) as r:
            for _, data in parse_frames(r.iter_lines()):
                got.append(httpx2.Response(200, content=data).json())
                if len(got) == 14:
                    break
    assert [e["id"] for e in got] == list(range(1, 15))
    assert [e["type"] for e in got[:7]] == ["session.start", *["assistant"] * 4, "status", "session.start"]
    assert got[6]["t"] == 400 and got[7]["t"] == 500
