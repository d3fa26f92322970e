"""A session file that is not a regular file (issue 27, requirement 8): a FIFO blocked every
reader (``SessionManager.open``, ``autocue report``, ``autocue --session``, ``autocue view``) and
``/dev/zero`` ended in ``MemoryError``. Each is a ``SessionFileError`` at once, and a file over
the size cap is refused with a clear message before any byte is read."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autocue.session import SessionFileError
from autocue.session.file_reader import MAX_SESSION_FILE_BYTES
from autocue.session.manager import SessionManager
from autocue.session.session_dir import find_most_recent_session, list_sessions

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'


def _fifo(tmp_path: Path, name: str = "s.jsonl") -> Path:
    p = tmp_path / name
    os.mkfifo(p)
    return p


def _zero(tmp_path: Path, name: str = "z.jsonl") -> Path:
    p = tmp_path / name
    p.symlink_to("/dev/zero")
    return p


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    t0 = time.monotonic()
    with pytest.raises(SessionFileError, match=r"s\.jsonl: is a FIFO, not a session file"):
        SessionManager.open(fifo)
    assert time.monotonic() - t0 < 1.0


def test_dev_zero_is_refused_before_reading_a_byte(tmp_path: Path) -> None:
    t0 = time.monotonic()
    with pytest.raises(SessionFileError, match=r"z\.jsonl: is a character device, not a session file"):
        SessionManager.open(_zero(tmp_path))
    assert time.monotonic() - t0 < 1.0


def test_a_file_over_the_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:  # sparse: no disk used, nothing read
        f.write(HEADER.encode())
        f.truncate(MAX_SESSION_FILE_BYTES + 1)
    with pytest.raises(SessionFileError) as ei:
        SessionManager.open(big)
    assert f"is {MAX_SESSION_FILE_BYTES + 1} bytes, larger than the limit of {MAX_SESSION_FILE_BYTES}" in str(ei.value)


def test_listing_and_most_recent_skip_a_fifo_in_the_session_dir(tmp_path: Path) -> None:
    (tmp_path / "good.jsonl").write_text(HEADER)
    _fifo(tmp_path, "planted.jsonl")
    _zero(tmp_path, "zero.jsonl")
    t0 = time.monotonic()
    assert find_most_recent_session(str(tmp_path)) == str(tmp_path / "good.jsonl")
    assert [i.path for i in list_sessions(str(tmp_path))] == [str(tmp_path / "good.jsonl")]
    assert time.monotonic() - t0 < 1.0


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "argv"), [
    ("fifo", ["report", "{p}"]), ("fifo", ["--session", "{p}", "-p", "hi"]),
    ("fifo", ["view", "{p}", "-o", "out.html"]),
    ("zero", ["report", "{p}"]),
])
def test_the_cli_says_what_the_file_is_at_once(tmp_path: Path, argv: list[str], kind: str) -> None:
    p = _fifo(tmp_path) if kind == "fifo" else _zero(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOCUE_", "OPENAI_", "ANTHROPIC_", "GEMINI_"))}
    env.update(AUTOCUE_DIR=str(tmp_path / "home"))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "autocue", *(a.format(p=p) for a in argv)], cwd=tmp_path, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert time.monotonic() - t0 < 15  # before the fix: blocked until the timeout (a FIFO) or MemoryError
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{p.name}: " in r.stderr and f"is {what}, not a " in r.stderr, r.stderr  # view: "it is a FIFO, not a file"
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
