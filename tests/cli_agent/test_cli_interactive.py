"""Interactive mode through a real pseudo-terminal: streamed reply, tool activity, slash commands."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from cli_helpers import chat_text, chat_tool, setup_home
from provider_wire_server import WireServer


def _read_until(fd: int, needle: bytes, buf: bytearray, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while needle not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{needle!r} not seen; output so far: {bytes(buf)!r}")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"terminal closed before {needle!r}; output: {bytes(buf)!r}")
            buf.extend(chunk)


def test_interactive_session(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    env["TERM"] = "dumb"
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n")
    server.push(chat_tool("read", {"path": "a.txt"}), chat_text("It says alpha."))
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "autocue.cli.main", "--no-session", "--tools", "read"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=work,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    buf = bytearray()
    try:
        _read_until(master, b"/help for commands", buf)
        _read_until(master, b"> ", buf)
        os.write(master, b"what is in a.txt?\n")
        _read_until(master, b"It says alpha.", buf)
        out = bytes(buf).decode("utf-8", "replace")
        assert '→ read {"path": "a.txt"}' in out
        assert "✓ read: alpha" in out
        os.write(master, b"/model\n")
        _read_until(master, b"model: mock/mock-gpt (openai-completions", buf)
        os.write(master, b"/thinking loud\n")
        _read_until(master, b"unknown thinking level 'loud'", buf)
        os.write(master, b"/quit\n")
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert len(server.requests) == 2
