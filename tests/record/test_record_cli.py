"""``autocue record`` as a real subprocess: the bound URL first, one line per session, clear errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from record_clients import openai_chat

from autocue.mockllm.server import serve

CMD = [sys.executable, "-m", "autocue.cli.main", "record"]
SCENARIO = """\
name: hello
initialPrompt: hi
timeline:
  - llmResponse:
      - assistant: [[0, "hello there"]]
"""


def test_prints_the_bound_url_first_then_records_a_session_that_replays(tmp_path: Path) -> None:
    up_file = tmp_path / "up.yaml"
    up_file.write_text(SCENARIO)
    out = tmp_path / "out"
    with serve(up_file) as up:
        proc = subprocess.Popen([*CMD, "--upstream", up.base_url, "-o", str(out)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert first.startswith("autocue record proxy: http://127.0.0.1:") and first.rstrip().endswith(up.base_url)
            url = first.split()[3]
            got = openai_chat(url, "session-key-1", ["hi"])
            lines = [proc.stdout.readline() for _ in range(3)]
        finally:
            proc.terminate()
            proc.wait(10)
    assert got[0]["text"] == "hello there"
    assert any(ln.strip().startswith("recording session session-") for ln in lines), lines
    (recorded,) = out.glob("*.yaml")
    with serve(recorded) as replay:
        assert openai_chat(replay.base_url, "k", ["hi"]) == got


@pytest.mark.parametrize(("args", "message"), [
    (["--upstream", "localhost:8000"], "--upstream 'localhost:8000': expected an http:// or https:// URL"),
    (["--upstream", "http://127.0.0.1:9", "--redact", "("], "--redact '(': not a regular expression"),
    (["--upstream", "http://127.0.0.1:9", "--redact-env", "AUTOCUE_SURELY_UNSET_VAR"],
     "--redact-env AUTOCUE_SURELY_UNSET_VAR: the environment variable AUTOCUE_SURELY_UNSET_VAR is not set"),
])
def test_bad_options_are_one_error_line(args: list[str], message: str, tmp_path: Path) -> None:
    r = subprocess.run([*CMD, *args, "-o", str(tmp_path / "o")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("autocue record: " + message), r.stderr
    assert "Traceback" not in r.stderr


def test_out_that_is_a_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    f = tmp_path / "file.txt"
    f.write_text("mine")
    r = subprocess.run([*CMD, "--upstream", "http://127.0.0.1:9", "-o", str(f)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "exists and is not a directory" in r.stderr and r.stderr.count("\n") == 1
    assert f.read_text() == "mine"
