"""The recording proxy's security and bounds (issue 27: requirements 1, 6, 11).

The upstream is a real HTTP server on loopback (a ``LoopbackServer`` around a small ASGI app)
that sets cookies and says, in its reply, which headers it received: what the proxy forwards
and what it records can both be seen. Real clients (``httpx2``) talk to a real
``RecordingServer``.
"""

from __future__ import annotations

import socket
import string
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autocue.mockllm.asgi import Receive, Scope, Send
from autocue.mockllm.options import DEFAULT_MAX_BODY
from autocue.mockllm.server import LoopbackServer
from autocue.mockllm.sources import MAX_SCENARIO_BYTES
from autocue.record import RecordingServer, Redactor

COOKIE = "sid=upstream-cookie-0123456789"


class Upstream:
    """Answers every POST with a chat completion whose text lists the Cookie and custom headers
    it got, and sets a cookie; ``/big`` streams ``big`` bytes of SSE text slowly at first."""

    def __init__(self) -> None:
        self.requests = 0
        self.big = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        while (await receive()).get("more_body"):
            pass
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if scope["path"].endswith("/big/chat/completions"):
            await self._big(send)
            return
        seen = {h: headers.get(h) for h in ("cookie", "x-internal-token", "x-team-secret")}
        body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": orjson.dumps(seen).decode()}}]}
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"set-cookie", COOKIE.encode())]})
        await send({"type": "http.response.body", "body": orjson.dumps(body)})

    async def _big(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        piece = "x" * 8000
        event = ("data: " + orjson.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                          "choices": [{"index": 0, "delta": {"content": piece}}]}).decode()
                 + "\n\n").encode()
        sent = 0
        while sent < self.big:
            await send({"type": "http.response.body", "body": event * 16, "more_body": True})
            sent += len(event) * 16
        done = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        await send({"type": "http.response.body", "body": b"data: " + orjson.dumps(done) + b"\n\ndata: [DONE]\n\n"})


@pytest.fixture
def upstream() -> Iterator[tuple[Upstream, str]]:
    app = Upstream()
    with LoopbackServer(app, "127.0.0.1", 0) as server:  # type: ignore[arg-type]
        yield app, server.base_url


def chat(url: str, key: str, headers: dict[str, str] | None = None, path: str = "/v1/chat/completions",
         timeout: float = 30) -> httpx2.Response:
    """One request from a fresh client (its own connection, no cookie jar of its own)."""
    with httpx2.Client(timeout=timeout) as c:
        return c.post(url + path, headers={"authorization": f"Bearer {key}", **(headers or {})},
                      json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})


def said(r: httpx2.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    seen: dict[str, Any] = orjson.loads(r.json()["choices"][0]["message"]["content"])
    return seen


# ---------------------------------------------------------------------------- 1. no state between clients
def test_one_clients_cookie_never_reaches_another_client(upstream: tuple[Upstream, str], tmp_path: Path) -> None:
    _, up = upstream
    with RecordingServer(upstream=up, out_dir=tmp_path) as rec:
        a = chat(rec.base_url, "client-a-key-0001")
        assert a.headers.get("set-cookie") == COOKIE, "the upstream's Set-Cookie is passed on to its client"
        b = chat(rec.base_url, "client-b-key-0002")
        assert said(b)["cookie"] is None, "client B's request carried client A's cookie"
        c = chat(rec.base_url, "client-c-key-0003", {"cookie": "mine=c-only-cookie-value"})
        assert said(c)["cookie"] == "mine=c-only-cookie-value", "a client's own Cookie is forwarded exactly"
    text = "".join(p.read_text() for p in tmp_path.glob("*.yaml"))
    assert "upstream-cookie-0123456789" not in text


def test_cookies_and_custom_auth_headers_are_redacted_from_recordings(upstream: tuple[Upstream, str],
                                                                      tmp_path: Path) -> None:
    """The upstream repeats the Cookie, x-internal-token and a --secret-header header in its reply:
    the recording keeps none of their values (nor the Set-Cookie value it sent back)."""
    _, up = upstream
    secrets = {"cookie": "theme=dark; session=cookie-secret-9876543210",
               "x-internal-token": "internal-token-abcdef123456", "x-team-secret": "team-secret-value-42424242"}
    with RecordingServer(upstream=up, out_dir=tmp_path, redactor=Redactor(secret_headers=["X-Team-Secret"])) as rec:
        r = chat(rec.base_url, "client-key-00000001", secrets)
        assert said(r) == secrets, "the headers reached the upstream as they were sent"
        chat(rec.base_url, "client-key-00000001")  # the Set-Cookie value of the first reply is a secret too
    (path,) = tmp_path.glob("*.yaml")
    text = path.read_text()
    assert "[REDACTED]" in text
    for leak in ("cookie-secret-9876543210", "internal-token-abcdef123456", "team-secret-value-42424242",
                 "upstream-cookie-0123456789"):
        assert leak not in text, (leak, text)


@pytest.mark.slow
def test_secret_header_option_and_upstream_password_in_the_cli(upstream: tuple[Upstream, str],
                                                                 tmp_path: Path) -> None:
    """``autocue record --secret-header NAME``: that header's value never reaches the recording;
    a password in ``--upstream`` never reaches stdout."""
    _, up = upstream
    password = "upstream-password-271828"
    up_with_password = up.replace("http://", f"http://me:{password}@")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "record", "--upstream", up_with_password,
                             "--secret-header", "X-Team-Secret", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        r = chat(first.split()[3], "client-key-00000002", {"x-team-secret": "team-secret-value-42424242"})
    finally:
        proc.terminate()
        proc.wait(10)
    assert first.startswith("autocue record proxy: http://127.0.0.1:") and "[REDACTED]" in first, first
    assert said(r)["x-team-secret"] == "team-secret-value-42424242"
    (path,) = out.glob("*.yaml")
    text = path.read_text()
    assert "team-secret-value-42424242" not in text and "[REDACTED]" in text, text
    assert password not in first + proc.stdout.read() + (proc.stderr.read() if proc.stderr else "")


# a secret-looking value that cannot be a word the recording holds anyway (a header name such as
# "x-internal-token", the model, the reply's keys): every value starts with "qz7"
_VALUE = st.text(alphabet=string.ascii_letters + string.digits + "-_.", min_size=5, max_size=37).map(
    lambda v: "qz7" + v)


@pytest.mark.slow
def test_probe_no_cross_talk_and_no_secret_in_any_recording(upstream: tuple[Upstream, str], tmp_path: Path) -> None:
    """A hypothesis probe (longer with ``--fuzz-long``): clients with random cookies, internal
    tokens, ``--secret-header`` values and ``?key=``s, one after another through one proxy.
    No client's request carries another's cookie, and no value is in any recording."""
    _, up = upstream
    sent: list[str] = []
    with RecordingServer(upstream=up, out_dir=tmp_path, redactor=Redactor(secret_headers=["x-team-secret"])) as rec, \
            httpx2.Client(timeout=30) as c:

        @given(cookie=_VALUE, token=_VALUE, team=_VALUE, key=_VALUE, with_cookie=st.booleans())
        def probe(cookie: str, token: str, team: str, key: str, with_cookie: bool) -> None:
            headers = {"x-internal-token": token, "x-team-secret": team, "authorization": f"Bearer k-{key}"}
            if with_cookie:
                headers["cookie"] = f"c={cookie}"
            c.cookies.clear()  # the test's own client keeps no cookies either: only the proxy could
            r = c.post(f"{rec.base_url}/v1/chat/completions?key={key}", headers=headers,
                       json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
            assert said(r) == {"cookie": headers.get("cookie"), "x-internal-token": token, "x-team-secret": team}
            sent.extend([cookie, token, team, key] if with_cookie else [token, team, key])

        probe()
    text = "".join(p.read_text() for p in tmp_path.glob("*.yaml"))
    assert sent and text
    leaked = [v for v in sent if v in text]
    assert not leaked, leaked


# ---------------------------------------------------------------------------- 6. no secret in a log
def test_unreachable_upstream_never_shows_the_key(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    key = "private-gemini-key-31415926"
    with RecordingServer(upstream=f"http://127.0.0.1:{port}", out_dir=tmp_path) as rec, \
            httpx2.Client(timeout=30) as c:
        r = c.post(f"{rec.base_url}/v1beta/models/gemini-2.5-flash:generateContent?key={key}&alt=json",
                   json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
        r2 = c.get(f"{rec.base_url}/v1/models?key={key}")
    err = capfd.readouterr().err
    assert r.status_code == 502 and r2.status_code == 502
    assert "cannot reach the upstream" in r.text and "cannot reach the upstream" in err
    for where in (r.text, r2.text, err):
        assert key not in where, where


def test_the_mock_servers_log_line_never_shows_the_api_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The mock server's one log line with request data (a scripted call of an undeclared tool)
    names the session, whose key is the client's API key: it goes through the redactor."""
    import logging

    import openai

    from autocue.mockllm import serve

    scenario = tmp_path / "deploy.yaml"
    scenario.write_text("""\
name: deploy
initialPrompt: deploy it
timeline:
  - llmResponse:
      - agentToolUse: {toolName: deploy, toolCallId: c1, args: {env: prod}}
""")
    key = "team-api-key-16180339"
    caplog.set_level(logging.WARNING, logger="autocue.mockllm")
    with serve(scenario) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key=key)
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "deploy it"}], tools=[
            {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}])
    [line] = [r.getMessage() for r in caplog.records if r.name == "autocue.mockllm"]
    assert "calls deploy, which this OpenAI Chat Completions request does not declare" in line
    assert key not in line and "session '[REDACTED]'" in line, line


# ---------------------------------------------------------------------------- 11. bounds
@pytest.mark.slow
def test_a_body_over_the_cap_is_413_and_never_forwarded(upstream: tuple[Upstream, str], tmp_path: Path) -> None:
    app, up = upstream
    big = b"{" + b" " * DEFAULT_MAX_BODY + b"}"

    def chunked() -> Iterator[bytes]:  # no Content-Length: the cap holds while reading
        for i in range(0, len(big), 1 << 20):
            yield big[i:i + (1 << 20)]

    with RecordingServer(upstream=up, out_dir=tmp_path) as rec, httpx2.Client(timeout=30) as c:
        t0 = time.monotonic()
        r = c.post(rec.base_url + "/v1/chat/completions", content=big, headers={"content-type": "application/json"})
        took = time.monotonic() - t0
        r2 = c.post(rec.base_url + "/v1/chat/completions", content=chunked(),
                    headers={"content-type": "application/json"})
        ok = chat(rec.base_url, "key-after-the-big-one")
    assert r.status_code == 413 and r2.status_code == 413, (r.text, r2.text)
    assert r.json()["error"]["code"] == "request_too_large" and str(DEFAULT_MAX_BODY) in r.text
    assert took < 5.0, f"the 413 took {took:.1f} s"
    assert app.requests == 1, "only the last (small) request reached the upstream"
    assert ok.status_code == 200


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory so far, in bytes (Linux ``VmHWM``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.slow
def test_a_big_reply_streams_in_bounded_memory_and_others_are_answered(
        upstream: tuple[Upstream, str], tmp_path: Path) -> None:
    """``autocue record`` as a subprocess. A 64 MiB reply (past the recording cap) streams through
    whole while the proxy's peak memory grows by less than a quarter of it, other clients are
    answered meanwhile, and stderr notes it was not recorded; a reply just under the cap is
    recorded without holding up the next client."""
    app, up = upstream
    out = tmp_path / "out"
    err = (tmp_path / "stderr.txt").open("w+")
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "record", "--json", "--upstream", up,
                             "-o", str(out)], stdout=subprocess.PIPE, stderr=err)
    try:
        assert proc.stdout is not None
        url = orjson.loads(proc.stdout.readline())["url"]
        assert chat(url, "warm-up-key-00001").status_code == 200
        before = _peak_rss(proc.pid)

        app.big = 64 * 1024 * 1024
        waits: list[float] = []
        done = threading.Event()

        def others() -> None:
            while not done.is_set() and len(waits) < 200:
                t = time.monotonic()
                assert chat(url, "small-key-0000002", timeout=10).status_code == 200
                waits.append(time.monotonic() - t)

        th = threading.Thread(target=others)
        th.start()
        size = 0
        tail = b""
        try:
            with httpx2.Client(timeout=60) as c, c.stream(
                    "POST", url + "/big/chat/completions", headers={"authorization": "Bearer huge-key-0000001"},
                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}) as r:
                assert r.status_code == 200
                for chunk in r.iter_raw():
                    size += len(chunk)
                    tail = (tail + chunk)[-64:]
        finally:
            done.set()
            th.join(60)
        grew = _peak_rss(proc.pid) - before

        app.big = MAX_SCENARIO_BYTES // 2  # just under the cap: recorded, off the event loop
        got = chat(url, "big-key-00000001", path="/big/chat/completions")
        t0 = time.monotonic()
        assert chat(url, "small-key-0000003").status_code == 200
        after = time.monotonic() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert size > app.big * 8 and tail.endswith(b"data: [DONE]\n\n"), "the 64 MiB reply was forwarded whole"
    assert grew < 16 * 1024 * 1024, f"the proxy's peak memory grew by {grew >> 20} MiB for a 64 MiB reply"
    assert waits and max(waits) < 2.0, f"a client waited {max(waits):.1f} s while a big reply streamed"
    assert got.status_code == 200 and len(got.content) > app.big
    assert after < 1.0, f"a client waited {after:.1f} s while a reply was recorded"
    err.seek(0)
    errors = err.read()
    assert f"larger than {MAX_SCENARIO_BYTES} bytes" in errors and "not recorded" in errors, errors
    files = {p.name: p.read_text() for p in out.glob("*.yaml")}
    assert len(files) == 4, "the 64 MiB reply's session has no file: nothing of it was recorded"
    assert max(len(t) for t in files.values()) < MAX_SCENARIO_BYTES


def test_a_link_planted_over_a_recording_is_one_line_and_the_client_still_gets_its_reply(
        upstream: tuple[Upstream, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27 req 12b through the proxy: the append refuses the planted link (RecordingFileError); the
    proxy says so in one line instead of an ASGI traceback, and the client's reply is not affected."""
    _, up = upstream
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("not autocue's\n")
    with RecordingServer(upstream=up, out_dir=out) as rec:
        said(chat(rec.base_url, "client-key-planted-01"))
        end = time.monotonic() + 10
        while not list(out.glob("*.yaml")) and time.monotonic() < end:  # written after the reply, off the loop
            time.sleep(0.01)
        (path,) = out.glob("*.yaml")
        path.unlink()
        path.symlink_to(victim)
        assert said(chat(rec.base_url, "client-key-planted-01"))["cookie"] is None
        assert said(chat(rec.base_url, "client-key-planted-02"))["cookie"] is None  # the proxy goes on
    assert victim.read_text() == "not autocue's\n"
    err = capsys.readouterr().err
    assert "the reply was forwarded but not recorded" in err and "symbolic link" in err, err
    assert "Traceback" not in err and "Exception in ASGI application" not in err, err
