"""``autocue acp-agent`` judged by the official TypeScript SDK: tests/fixtures/acp/ts_client.mjs (its
``ClientSideConnection``) completes the scripted session of tests/fixtures/acp/session.yaml.

The SDK is installed with npm (pinned) into ``$XDG_CACHE_HOME/autocue/npm-acp-sdk-VERSION`` once; the test
skips, saying why, when node or npm is missing or the registry cannot be reached."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
SDK_VERSION = "1.9.0"
"""The last SDK line with ``ClientSideConnection`` (2.x replaced it with an app API)."""
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "acp"


def _sdk() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the TypeScript SDK judge")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autocue" / f"npm-acp-sdk-{SDK_VERSION}"
    if not (cache / "node_modules" / "@agentclientprotocol" / "sdk" / "package.json").is_file():
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(cache),
                               f"@agentclientprotocol/sdk@{SDK_VERSION}"], capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            pytest.skip(f"npm install @agentclientprotocol/sdk@{SDK_VERSION} failed (no registry?): "
                        f"{proc.stderr.strip().splitlines()[-1:]}")
    return cache


def test_the_typescript_sdk_client_completes_a_scripted_session(tmp_path: Path) -> None:
    cache = _sdk()
    client = cache / "ts_client.mjs"  # beside its node_modules, so its import resolves
    shutil.copyfile(FIXTURES / "ts_client.mjs", client)
    prompts = json.dumps(["Create notes.txt and check it", "Now list the folder", "more?"])
    proc = subprocess.run(["node", str(client), str(tmp_path), prompts, "--", sys.executable, "-m", "autocue",
                           "acp-agent", str(FIXTURES / "session.yaml")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["agent"] == "autocue-acp-agent" and seen["agentExit"] == 0
    assert seen["stops"] == ["end_turn", "refusal"]
    [err] = seen["errors"]
    assert "prompt 3 has no turn" in err or "Invalid request" in err, err
    assert seen["text"] == "Writing notes.txt.notes.txt has two lines.Done."
    assert seen["tools"][:3] == [["edit", "writeFile notes.txt"], ["read", "readFile notes.txt"],
                                 ["execute", "runCmd grep -c a notes.txt"]]
    assert seen["ends"] == ["completed"] * 5
    assert seen["methods"] == ["fs/write_text_file", "fs/read_text_file", "terminal/create", "fs/read_text_file",
                               "fs/write_text_file", "terminal/create"]
    assert seen["permissions"] == ["runCmd grep -c a notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"
