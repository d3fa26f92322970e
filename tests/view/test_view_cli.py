"""``autocue view`` as a subprocess: where it writes, what it refuses, one-line errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conformance import PI_SESSIONS
from view_helpers import page_data, run_dir


def view(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue.cli.main", "view", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def test_writes_next_to_the_input_and_prints_the_path(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(PI_SESSIONS / "anthropic-tools.jsonl", src)
    r = view(str(src))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "s.html")
    assert page_data((tmp_path / "s.html").read_text())["kind"] == "session"
    assert view(str(src)).returncode == 0  # its own page is rewritten


def test_run_directory_page_goes_inside_it(tmp_path: Path) -> None:
    run = run_dir(tmp_path)
    r = view(str(run))
    assert r.returncode == 0, r.stderr
    assert page_data((run / "view.html").read_text())["kind"] == "run"


def test_never_overwrites_a_file_it_did_not_write(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(PI_SESSIONS / "anthropic-tools.jsonl", src)
    mine = tmp_path / "s.html"
    mine.write_text("<p>my notes</p>")
    r = view(str(src))
    assert r.returncode == 1
    assert r.stderr.strip() == f"autocue view: {mine} exists and was not written by autocue view; choose another " \
                               "file with -o"
    assert mine.read_text() == "<p>my notes</p>"
    out = tmp_path / "other.html"
    assert view(str(src), "-o", str(out)).returncode == 0 and out.is_file()


def test_bad_input_is_one_line_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\n")
    r = view(str(bad), "-o", str(tmp_path / "x.html"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"autocue view: {bad}:1: not JSON")
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.html").exists()


def test_unreachable_live_url_says_what_to_start() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = view(f"http://127.0.0.1:{port}/api/v1/sessions/sim-1", "-o", "/dev/null")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "cannot reach the simulation server" in r.stderr and "is `autocue simulate` running?" in r.stderr
