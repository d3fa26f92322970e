"""The python examples of docs/mock-server.md run; ``autocue serve`` starts, prints its URL,
serves and stops; the pytest fixture serves its source."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from doc_blocks import code_blocks, run_block
from mockllm_helpers import say

from autocue.mockllm import MockLLMServer
from autocue.mockllm import pytest_fixture as mock_llm  # noqa: F401  (the fixture under test)
from autocue.script import Script, Turn

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "mock-server.md"


def blocks() -> list[tuple[int, str]]:
    return code_blocks(PAGE)


def test_page_has_examples() -> None:
    assert len(blocks()) >= 3


@pytest.mark.parametrize(("line", "code"), blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_doc_example_runs(line: int, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_block(PAGE, line, code, f"doc_example_{line}")


def test_cli_serve_prints_url_and_serves(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("name: cli\ninitialPrompt: hi\ntimeline:\n  - assistant: [[0, 'from the cli']]\n")
    rec = tmp_path / "rec"
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "serve", str(f), "--json", "--record-dir",
                             str(rec), "--speed", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        info = json.loads(proc.stdout.readline())
        assert info["url"].startswith("http://127.0.0.1:") and info["scenarios"] == ["cli"]
        r = httpx2.post(info["url"] + "/v1/chat/completions", json={"model": "m", "messages": [
            {"role": "user", "content": "hi"}]})
        assert r.json()["choices"][0]["message"]["content"] == "from the cli"
        r = httpx2.post(info["url"] + "/v1/chat/completions", json={"model": "m", "messages": [
            {"role": "user", "content": "hi"}]}, headers={"x-scenario-name": "nope"})
        assert r.status_code == 404 and list(rec.rglob("*.json"))
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_cli_serve_human_output_and_bad_input(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "autocue.cli.main", "serve", str(tmp_path / "missing.yaml")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "does not exist" in out.stderr
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert re.match(r"autocue mock LLM server: http://127\.0\.0\.1:\d+$", line.strip()), line
    finally:
        proc.terminate()
        proc.wait(timeout=15)


@pytest.fixture
def mock_llm_source() -> Script:
    return Script([Turn("hi", [say("from the fixture")])], name="fx")


def test_pytest_fixture(mock_llm: MockLLMServer) -> None:  # noqa: F811
    r = httpx2.post(mock_llm.openai_base_url + "/chat/completions", json={"model": "m", "messages": [
        {"role": "user", "content": "hi"}]})
    assert r.json()["choices"][0]["message"]["content"] == "from the fixture"
    mock_llm.assert_all_consumed()


@pytest.fixture
def stopped() -> Iterator[list[MockLLMServer]]:
    seen: list[MockLLMServer] = []
    yield seen
    for s in seen:
        with pytest.raises(httpx2.ConnectError):
            httpx2.get(s.base_url + "/", timeout=2)


def test_server_stops_cleanly(stopped: list[MockLLMServer]) -> None:
    server = MockLLMServer(Script([Turn("hi", [say("x")])]))
    with server:
        assert httpx2.head(server.base_url + "/").status_code == 200
    stopped.append(server)
    with pytest.raises(AssertionError, match="no session started"):
        server.assert_all_consumed()
    with MockLLMServer(Script([Turn("hi", [say("x"), say("y")])], name="two")) as again:
        httpx2.post(again.base_url + "/v1/messages", json={"model": "m", "messages": []})
        with pytest.raises(AssertionError, match="left 1 of 2 replies of 'two' unplayed"):
            again.assert_all_consumed()
    stopped.append(again)


def test_demo_plays_a_scenario_to_autocues_agent_end_to_end() -> None:
    from autocue.mockllm.demo import run_demo

    lines: list[str] = []
    assert run_demo(lines.append) == 0, "\n".join(lines)
    text = "\n".join(lines)
    assert "-> read({'path': 'greeting.txt'})" in text and "<- read: Helo, world!" in text
    assert "greeting.txt: 'Hello, world!'" in text
    assert "3/3 replies played, profile pi, 1/1 assertion(s) passed, errors: 0" in text
