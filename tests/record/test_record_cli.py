"""``autocue record`` as a real subprocess: the bound URL first, one line per session, clear errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
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
            lines = [proc.stdout.readline() for _ in range(4)]
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


@pytest.mark.slow
def test_announcements_to_a_full_stdout_never_block_and_sigterm_ends_it(tmp_path: Path) -> None:
    """A parent that never reads stdout (a 4 KiB pipe): every request is still answered at once,
    announcements past the pipe and the queue are dropped and counted, and SIGTERM ends it."""
    import fcntl
    import time
    from concurrent.futures import ThreadPoolExecutor

    import httpx2

    up_file = tmp_path / "up.yaml"
    up_file.write_text(SCENARIO)
    err = (tmp_path / "stderr.txt").open("w+")
    out = tmp_path.joinpath(*["d" * 200] * 12)  # announcements of 2.5 KB: the 4 KiB pipe holds one, the queue 26
    sessions = 60
    with serve(up_file) as up, httpx2.Client(timeout=5) as http:
        proc = subprocess.Popen([*CMD, "--json", "--upstream", up.base_url, "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=err)
        try:
            assert proc.stdout is not None
            fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 4096)
            url = orjson.loads(proc.stdout.readline())["url"]  # then stdout is never read again

            def one(i: int) -> float:
                t0 = time.monotonic()
                r = http.post(url + "/v1/chat/completions", headers={"authorization": f"Bearer key-{i:04d}"},
                              json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
                assert r.status_code == 200 and "hello there" in r.text
                return time.monotonic() - t0

            with ThreadPoolExecutor(4) as pool:
                took = list(pool.map(one, range(sessions)))
            assert max(took) < 3.0, f"a request waited {max(took):.1f} s"
            t0 = time.monotonic()
            proc.terminate()
            proc.wait(10)
            assert time.monotonic() - t0 < 5.0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    printed = [orjson.loads(ln) for ln in proc.stdout.read().splitlines()]
    assert printed and all(set(p) == {"session", "file"} for p in printed)
    err.seek(0)
    errors = err.read()
    assert "stdout is not read" in errors, errors
    unprinted = int(re.search(r"(\d+) session announcements were not printed", errors)[1])  # type: ignore[index]
    assert len(printed) + unprinted == sessions, (len(printed), errors)
    assert len(list(out.glob("*.yaml"))) == sessions, "every session is still recorded"
