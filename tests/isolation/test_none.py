"""``none`` (no sandbox): the program is a local process whose proxy variables point at a refusing proxy.

An HTTP client that honours them (``urllib`` here, as most do) gets a 403 at once for any URL, and
the targets are reported; loopback (the mock server) bypasses the proxy (``NO_PROXY``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from sandbox_helpers import PROBE

from autocue.isolation import SandboxSpec, find
from autocue.mockllm.server import MockLLMServer


def test_proxied_requests_are_refused_and_reported_and_loopback_bypasses(tmp_path: Path) -> None:
    ws = tmp_path / "work"
    ws.mkdir()
    box = find("none").start(SandboxSpec(ws, tmp_path))
    try:
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        child = box.exec([sys.executable, str(PROBE), "--proxied"], env=env, cwd=ws)
        out, err = child.proc.communicate(timeout=60)
        assert child.proc.returncode == 0, err.decode()
        with MockLLMServer() as server:  # the proxy variables leave loopback alone
            local = box.exec([sys.executable, "-c", "import sys, urllib.request; "
                              "print(urllib.request.urlopen(sys.argv[1]).status)", f"{server.openai_base_url}/models"],
                             env=env, cwd=ws)
            status, lerr = local.proc.communicate(timeout=60)
        egress = {e.destination: e.count for e in box.egress()}
    finally:
        box.close()
    results = {r["what"]: r for r in json.loads(out)}
    for what in ("https://example.com/", "http://10.1.2.3/"):
        assert "403" in str(results[what]["outcome"]), results[what]
        assert results[what]["seconds"] < 2.0
    assert egress == {"example.com:443": 1, "10.1.2.3:80": 1}
    assert status.decode().strip() == "200", lerr.decode()
    w = box.command(["true"], env, ws, terminal=False)
    assert w.env["HTTPS_PROXY"] == w.env["http_proxy"] == w.env["ALL_PROXY"] and "127.0.0.1" in w.env["NO_PROXY"]
