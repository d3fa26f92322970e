"""The admin API (``/_autocue/``) against an untrusted agent and untrusted web pages: writes
stay in the server's memory, reads come only from the paths it was started with and are
bounded, browsers' cross-site requests and DNS rebinding are refused, and a token can be
required. Each test is the regression test of one finding of issue 15."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from autocue.mockllm import MockLLMServer, ScenarioSourceError, serve
from autocue.mockllm.sources import MAX_SCENARIO_BYTES

SCENARIO = "name: {name}\ntimeline:\n  - assistant: [[0, 'hello from {name}']]\n"


def admin_error(r: httpx2.Response, status: int) -> str:
    """The message of an admin error, after checking its status and OpenAI shape."""
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert isinstance(err["message"], str) and isinstance(err["type"], str) and "code" in err
    return str(err["message"])


def post(server: MockLLMServer, body: object, **headers: str) -> httpx2.Response:
    return httpx2.post(server.base_url + "/_autocue/scenarios", json=body, headers=headers)


@pytest.fixture
def roots(tmp_path: Path) -> Iterator[tuple[MockLLMServer, Path, Path]]:
    """A server started with the directory ``allowed``; ``outside`` is a sibling directory."""
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    with serve(allowed) as server:
        yield server, allowed, outside


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_posted_yaml_name_cannot_place_a_file_anywhere(roots: tuple[MockLLMServer, Path, Path], kind: str) -> None:
    server, _, outside = roots
    target = outside / "pwned"
    name = str(target) if kind == "absolute" else "../" * 40 + str(target).lstrip("/")
    r = post(server, {"yaml": SCENARIO.format(name="evil"), "name": name})
    assert "'name' must be an identifier" in admin_error(r, 400)
    assert not target.with_suffix(".yaml").exists() and list(outside.iterdir()) == []
    assert "evil" not in server.state.playables


def test_posted_yaml_is_kept_in_memory_under_its_name(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, allowed, outside = roots
    r = post(server, {"yaml": SCENARIO.format(name="in_memory"), "name": "my_scenario-2"})
    assert r.status_code == 200 and r.json()["loaded"] == ["in_memory"], r.text
    assert list(allowed.iterdir()) == [] and list(outside.iterdir()) == []
    r = post(server, {"yaml": "timeline: [", "name": "broken"})
    assert "cannot load scenario <posted>/broken.yaml:1:" in admin_error(r, 400)


def test_paths_outside_the_started_ones_are_refused(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, allowed, outside = roots
    secret = outside / "secret.yaml"
    secret.write_text(SCENARIO.format(name="secret"))
    for path in (str(secret), str(allowed / ".." / "outside" / "secret.yaml"), "/etc/passwd", "relative.yaml"):
        msg = admin_error(post(server, {"path": path}), 403)
        assert "not one of the scenario files or directories this server was started with" in msg
        assert str(allowed) in msg
    (allowed / "link.yaml").symlink_to(secret)
    assert "not one of" in admin_error(post(server, {"path": str(allowed / "link.yaml")}), 403)
    assert "leads outside" in admin_error(post(server, {"path": str(allowed)}), 403)
    assert "secret" not in server.state.playables
    (allowed / "link.yaml").unlink()
    (allowed / "ok.yaml").write_text(SCENARIO.format(name="ok"))
    assert post(server, {"paths": [str(allowed / "ok.yaml"), str(allowed)]}).json()["loaded"] == ["ok", "ok"]


def test_dev_zero_and_fifos_are_never_read(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, allowed, _ = roots
    assert "not one of" in admin_error(post(server, {"path": "/dev/zero"}), 403)
    fifo = allowed / "pipe.yaml"
    os.mkfifo(fifo)
    msg = admin_error(post(server, {"path": str(fifo)}), 400)
    assert "is not a regular file (a FIFO)" in msg
    with pytest.raises(ScenarioSourceError, match=r"'/dev/zero' is not a regular file \(a character device\)"):
        MockLLMServer(Path("/dev/zero"))


def test_scenario_files_over_the_size_cap_are_not_read(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, allowed, _ = roots
    big = allowed / "big.yaml"
    with big.open("wb") as f:
        f.truncate(MAX_SCENARIO_BYTES + 1)  # sparse: the size is what counts
    msg = admin_error(post(server, {"path": str(big)}), 413)
    assert f"larger than the limit of {MAX_SCENARIO_BYTES} bytes" in msg
    r = httpx2.post(server.base_url + "/_autocue/scenarios", content=b"x" * (MAX_SCENARIO_BYTES + 10),
                    headers={"content-type": "application/json"})
    assert "larger than the mock server's limit" in admin_error(r, 413)


def test_a_web_page_cannot_post_text_plain_or_from_a_foreign_origin(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, _, _ = roots
    body = json.dumps({"yaml": SCENARIO.format(name="xsite"), "name": "xsite"})
    url = server.base_url + "/_autocue/scenarios"
    r = httpx2.post(url, content=body, headers={"content-type": "text/plain", "origin": "https://evil.example"})
    assert "Origin 'https://evil.example' is not this server" in admin_error(r, 403)
    r = httpx2.post(url, content=body, headers={"content-type": "text/plain"})
    assert "needs 'Content-Type: application/json' (got text/plain)" in admin_error(r, 415)
    for origin in ("null", f"http://127.0.0.1:{server.port + 1 if server.port < 65535 else 1}",
                   f"http://evil.example:{server.port}"):
        r = httpx2.post(url, content=body, headers={"content-type": "application/json", "origin": origin})
        admin_error(r, 403)
    r = httpx2.post(server.base_url + "/_autocue/reset", headers={"origin": "https://evil.example"})
    admin_error(r, 403)
    assert "xsite" not in server.state.playables
    for origin in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}"):
        r = httpx2.post(url, content=body, headers={"content-type": "application/json", "origin": origin})
        assert r.status_code == 200 and r.json()["loaded"] == ["xsite"], r.text


def test_dns_rebinding_host_is_refused() -> None:
    with serve() as server:
        url = server.base_url + "/_autocue/sessions"
        r = httpx2.get(url, headers={"host": f"rebind.evil.example:{server.port}"})
        assert "Host 'rebind.evil.example:" in admin_error(r, 403)
        for host in (f"localhost:{server.port}", "127.0.0.1", f"127.0.0.1:{server.port}"):
            assert httpx2.get(url, headers={"host": host}).json() == {"sessions": []}
        r = httpx2.post(server.base_url + "/v1/chat/completions", headers={"host": "rebind.evil.example"},
                        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert r.status_code == 404 and "no scenario is loaded" in r.json()["error"]["message"]  # API routes answer


def test_admin_token_guards_every_admin_route_but_not_the_api() -> None:
    with serve(admin_token="s3cret") as server:
        base = server.base_url
        for method, path in (("GET", "/_autocue/sessions"), ("GET", "/_autocue/health"), ("POST", "/_autocue/reset"),
                             ("GET", "/_autocue/scenarios"), ("DELETE", "/_autocue/sessions/k")):
            r = httpx2.request(method, base + path, json={} if method == "POST" else None)
            assert "has an admin token" in admin_error(r, 401)
            assert r.headers["www-authenticate"] == "Bearer"
            r = httpx2.request(method, base + path, headers={"authorization": "Bearer wrong"})
            admin_error(r, 401)
        assert httpx2.get(base + "/_autocue/sessions", headers={"authorization": "Bearer s3cret"}).status_code == 200
        assert httpx2.get(base + "/_autocue/sessions", headers={"x-autocue-admin-token": "s3cret"}).status_code == 200
        r = httpx2.post(base + "/_autocue/scenarios", headers={"x-autocue-admin-token": "s3cret"},
                        json={"yaml": SCENARIO.format(name="t"), "name": "t"})
        assert r.json()["loaded"] == ["t"], r.text
        r = httpx2.post(base + "/v1/chat/completions", headers={"authorization": "Bearer session-key"},
                        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert r.json()["choices"][0]["message"]["content"] == "hello from t"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["flag", "env"])
def test_cli_admin_token_from_flag_or_environment(tmp_path: Path, how: str) -> None:
    argv = [sys.executable, "-m", "autocue.cli.main", "serve", "--json"]
    env = {k: v for k, v in os.environ.items() if k != "AUTOCUE_ADMIN_TOKEN"}
    if how == "flag":
        argv += ["--admin-token", "tok-flag"]
    else:
        env["AUTOCUE_ADMIN_TOKEN"] = "tok-env"
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        admin_error(httpx2.get(url + "/_autocue/sessions"), 401)
        r = httpx2.get(url + "/_autocue/sessions", headers={"authorization": f"Bearer tok-{how}"})
        assert r.json() == {"sessions": []}
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_admin_post_bodies_are_checked(roots: tuple[MockLLMServer, Path, Path]) -> None:
    server, allowed, _ = roots
    cases: list[tuple[object, str]] = [
        ([1], "must be a JSON object, got list"),
        ({}, "no scenario given"),
        ({"yaml": 3}, "'yaml' must be a string"),
        ({"path": 3}, "'path' must be a string"),
        ({"paths": []}, "a non-empty list of strings"),
        ({"path": str(allowed), "yaml": "x"}, "give one of yaml, path, paths"),
        ({"path": str(allowed), "name": "n"}, "'name' goes with 'yaml'"),
        ({"yml": "x"}, "unknown key 'yml'"),
        ({"path": "a\x00b"}, "not one of"),
    ]
    for body, want in cases:
        r = post(server, body)
        assert want in admin_error(r, 403 if want == "not one of" else 400), body
    r = httpx2.post(server.base_url + "/_autocue/scenarios", content=b"{nope",
                    headers={"content-type": "application/json"})
    assert "malformed JSON" in admin_error(r, 400)


@pytest.mark.slow
def test_cli_serve_refuses_devices_and_fifos_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "a character device"), (str(fifo), "a FIFO")):
        out = subprocess.run([sys.executable, "-m", "autocue.cli.main", "serve", path], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.strip() == (f"autocue serve: scenario path {path!r} is not a regular file ({kind}): give a "
                                      "scenario YAML file or a directory of them")


def _big_scenario(replies: int) -> str:
    """A legal scenario of many turns, written the way users write them (seed 004 forms)."""
    items = "".join(f'  - llmResponse:\n      - assistant: [[0, "reply number {i} with some words in it"]]\n'
                    f'  - userInputs: [[0, "next {i}"]]\n' for i in range(replies))
    return "name: big\ninitialPrompt: go\ntimeline:\n" + items


@pytest.mark.slow
def test_posting_a_large_scenario_does_not_stall_other_clients(roots: tuple[MockLLMServer, Path, Path]) -> None:
    """Issue 27 req 12f: the admin API parsed a posted scenario on the event loop: every client waited for it."""
    server, _, _ = roots
    done: list[httpx2.Response] = []
    body = {"yaml": _big_scenario(1500), "name": "big"}
    poster = threading.Thread(target=lambda: done.append(
        httpx2.post(server.base_url + "/_autocue/scenarios", json=body, timeout=120)))
    t0 = time.monotonic()
    poster.start()
    latencies: list[float] = []
    try:
        time.sleep(0.3)  # the body is on its way (a few hundred KB on loopback)
        while poster.is_alive() and len(latencies) < 200:
            s = time.monotonic()
            r = httpx2.get(server.base_url + "/_autocue/health", timeout=60)
            latencies.append(time.monotonic() - s)
            assert r.status_code == 200
            time.sleep(0.05)
    finally:
        poster.join(120)
    load = time.monotonic() - t0
    assert done and done[0].status_code == 200 and done[0].json()["loaded"] == ["big"], done
    # the load took seconds; every health check meanwhile was answered within a fraction of it (before: the
    # first one waited for the whole load). The loader thread shares the GIL with this process's server and
    # client threads, so "at once" is a few hundred ms on a loaded machine, not the 10 ms of an idle server.
    # A blocked loop would make one check wait out the whole load and leave room for one or two checks in
    # all; here the typical check is a small fraction of the load and none waits for most of it.
    assert load > 1.0 and len(latencies) >= 3, (load, latencies)
    typical = sorted(latencies)[len(latencies) // 2]
    assert typical < load / 8, (load, latencies)
    assert max(latencies) < load / 2, (load, latencies)
