"""``bwrap``: a read-only root, a writable workspace, and a network that reaches only the mock server.

The probe (tests/fixtures/egress_probe.py) tries a public address, a private one and a DNS lookup,
then fetches the real mock server's model list through the forwarded port: the three fail at once
(a reset, well under a TCP timeout) and are reported; the mock server answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_helpers import PROBE, bwrap_or_skip

from autocue.isolation import SandboxSpec, find
from autocue.mockllm.server import MockLLMServer
from autocue.process import capture_sync


@pytest.fixture
def server() -> MockLLMServer:
    with MockLLMServer() as s:
        yield s  # type: ignore[misc]


def _spec(tmp_path: Path, port: int | None) -> SandboxSpec:
    ws = tmp_path / "work"
    ws.mkdir()
    return SandboxSpec(workspace=ws, state_dir=tmp_path, mock_port=port)


def test_egress_fails_at_once_and_is_reported_while_the_mock_server_answers(tmp_path: Path,
                                                                            server: MockLLMServer) -> None:
    bwrap_or_skip()
    spec = _spec(tmp_path, server.port)
    box = find("bwrap").start(spec)
    try:
        child = box.exec([sys.executable, str(PROBE), "--mock", f"{server.openai_base_url}/models"],
                         env={"PATH": "/usr/bin:/bin"}, cwd=spec.workspace)
        out, err = child.proc.communicate(timeout=60)
        assert child.proc.returncode == 0, err.decode()
        results = {r["what"]: r for r in json.loads(out)}
        egress = {e.destination: e.count for e in box.egress()}
    finally:
        box.close()
    assert results["mock"]["outcome"] == "HTTP 200"
    for what in ("1.1.1.1:443", "10.1.2.3:80", "dns:example.com"):
        assert results[what]["outcome"] != "connected" and not results[what]["outcome"].startswith("resolved")
        assert results[what]["seconds"] < 2.0, results[what]  # refused at once, not a timeout (20 s)
    assert egress.get("1.1.1.1:443") == 1 and egress.get("10.1.2.3:80") == 1
    assert egress.get("dns:example.com", 0) >= 1 and egress.get("dns:example.org") == 1
    # a resolver that cannot see ICMP errors gets an answer at once: NXDOMAIN from the server it asked
    raw = results["dns:example.org (unconnected UDP)"]
    assert raw["outcome"].startswith("answer rcode 3 from") and raw["outcome"].endswith("(server matches)"), raw
    assert raw["seconds"] < 2.0, raw
    assert not any(d.startswith("127.") for d in egress)  # the forwarded mock server is not egress


def test_the_root_is_read_only_and_the_workspace_home_and_tmp_are_private(tmp_path: Path) -> None:
    bwrap_or_skip()
    spec = _spec(tmp_path, None)
    outside = Path("/tmp") / f"autocue-bwrap-probe-{tmp_path.name}"
    box = find("bwrap").start(spec)
    script = (f"touch {spec.workspace}/made && touch \"$HOME/made\" && touch {outside} && "
              "! touch /usr/autocue-nope 2>/dev/null && echo ok")
    try:
        child = box.exec(["sh", "-c", script], env={"PATH": "/usr/bin:/bin", "HOME": "/root"}, cwd=spec.workspace)
        out, err = child.proc.communicate(timeout=60)
    finally:
        box.close()
    assert out.decode().strip() == "ok", err.decode()
    assert (spec.workspace / "made").exists() and (tmp_path / "home" / "made").exists()
    assert not outside.exists()  # /tmp inside is its own
    assert not Path("/usr/autocue-nope").exists()


def test_a_program_in_a_pty_is_driven_like_a_local_child(tmp_path: Path) -> None:
    bwrap_or_skip()
    spec = _spec(tmp_path, None)
    box = find("bwrap").start(spec)
    try:
        child = box.exec(["sh", "-c", "test -t 0 && echo tty-ok; exit 3"], env={"PATH": "/usr/bin:/bin"},
                         cwd=spec.workspace, terminal=(80, 24))
        assert child.terminal is not None
        code = child.reap(30)
        data = b""
        import os

        try:
            while chunk := os.read(child.terminal, 4096):
                data += chunk
        except OSError:
            pass
        os.close(child.terminal)
    finally:
        box.close()
    assert code == 3
    assert b"tty-ok" in data


def test_nothing_of_the_sandbox_outlives_a_stop(tmp_path: Path) -> None:
    bwrap_or_skip()
    spec = _spec(tmp_path, None)
    box = find("bwrap").start(spec)
    marker = f"autocue-orphan-{tmp_path.name}"
    try:
        script = f"(exec -a {marker} sleep 300) & exec -a {marker} sleep 300"
        child = box.exec(["bash", "-c", script], env={"PATH": "/usr/bin:/bin"}, cwd=spec.workspace)
        assert child.reap(0.3) is None

        def wait(seconds: float) -> bool:
            return child.reap(seconds) is not None

        assert child.stop(1.0, wait)
    finally:
        box.close()
    left = capture_sync(["pgrep", "-f", marker]).stdout.strip()
    assert not left, f"processes left: {left}"
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True, check=False).returncode == 1


def test_a_stdio_program_talks_over_pipes_as_an_acp_agent_would(tmp_path: Path, server: MockLLMServer) -> None:
    """``exec`` with pipes: lines written to the program's stdin come back on its stdout while it runs (the way
    the ACP mode drives an agent's JSON-RPC over stdio), and it reaches the mock server meanwhile."""
    bwrap_or_skip()
    spec = _spec(tmp_path, server.port)
    box = find("bwrap").start(spec)
    echo = ("import sys, urllib.request\n"
            "for line in sys.stdin:\n"
            "    status = urllib.request.urlopen(line.strip()).status\n"
            "    print(f'{status} {line.strip()}', flush=True)\n")
    try:
        child = box.exec([sys.executable, "-c", echo], env={"PATH": "/usr/bin:/bin"}, cwd=spec.workspace,
                         stdin=subprocess.PIPE)
        assert child.proc.stdin is not None and child.proc.stdout is not None
        url = f"{server.openai_base_url}/models"
        for _ in range(2):
            child.proc.stdin.write(f"{url}\n".encode())
            child.proc.stdin.flush()
            assert child.proc.stdout.readline().decode().strip() == f"200 {url}"
        child.proc.stdin.close()
        assert child.reap(30) == 0
    finally:
        box.close()
