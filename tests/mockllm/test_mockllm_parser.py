"""The HTTP parser: httptools (C) by default, h11 on request; both keep chaos's TCP reset working."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from mockllm_helpers import say
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from autocue.mockllm import serve
from autocue.mockllm.protocol import DirectHttpProtocol
from autocue.mockllm.server import (
    PARSER_ENV,
    http_protocol,
    uvicorn_config,
)
from autocue.script import Script, Turn

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def _script() -> Script:
    return Script([Turn("hi", [say("reply 1: hello there, this is a longer text")])], name="hello")


def test_httptools_is_the_default_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PARSER_ENV, raising=False)
    assert uvicorn_config(Starlette()).http is DirectHttpProtocol
    monkeypatch.setenv(PARSER_ENV, "h11")
    assert issubclass(http_protocol(), H11Protocol)
    assert http_protocol() is http_protocol()  # built once


def test_an_unknown_parser_name_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PARSER_ENV, "llhttp")
    with pytest.raises(ValueError, match=r"AUTOCUE_HTTP_PARSER='llhttp' .*httptools, h11"):
        http_protocol()


@pytest.mark.parametrize("parser", ["httptools", "h11"])
def test_both_parsers_answer_and_reset_a_connection_mid_stream(parser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PARSER_ENV, parser)
    with serve(_script()) as server:
        r = httpx2.post(server.openai_base_url + "/chat/completions", json=BODY, headers={"authorization": "Bearer a"})
        assert r.status_code == 200 and b"hello there" in r.content
        got: list[bytes] = []
        with pytest.raises((httpx2.ReadError, httpx2.RemoteProtocolError)), httpx2.stream(
                "POST", server.openai_base_url + "/chat/completions", json=BODY,
                headers={"authorization": "Bearer b", "x-autocue-chaos": "reset=2"}) as resp:
            for chunk in resp.iter_raw():
                got.append(chunk)
        assert b"".join(got).count(b"data: ") == 2


def test_autocue_serve_refuses_an_unknown_parser_before_printing_its_url(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\ntimeline:\n  - assistant: [[0, 'hi']]\n")
    out = subprocess.run([sys.executable, "-m", "autocue.cli.main", "serve", str(scenario)], capture_output=True,
                         text=True, timeout=60, env={**os.environ, PARSER_ENV: "llhttp"})
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        "autocue serve: AUTOCUE_HTTP_PARSER='llhttp' is not an HTTP parser autocue knows: use one of httptools, h11"]
