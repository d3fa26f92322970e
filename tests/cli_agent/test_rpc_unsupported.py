"""pi's RPC commands that autocue does not support: what autocue answers, and that the docs list them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.modes.rpc_mode import RpcServer

ROOT = Path(__file__).resolve().parents[2]


def unsupported_in_code() -> list[str]:
    return sorted(n[4:] for n in dir(RpcServer) if n.startswith("cmd_")
                  and getattr(RpcServer, n) is RpcServer._unsupported)


def test_the_docs_list_every_unsupported_command() -> None:
    text = (ROOT / "docs" / "agent-cli.md").read_text(encoding="utf-8")
    m = re.search(r"pi's RPC commands that autocue does not support: ([^.]*)\.", text)
    assert m, "docs/agent-cli.md: the list of unsupported RPC commands is missing"
    assert sorted(re.findall(r"`(\w+)`", m.group(1))) == unsupported_in_code() != []


@pytest.mark.slow
def test_unsupported_and_unknown_commands_get_an_error_response(tmp_path: Path) -> None:
    playbook = tmp_path / "playbook.json"
    playbook.write_text("[]")
    names = unsupported_in_code()
    lines = [{"id": str(i), "type": n} for i, n in enumerate(names)] + [{"id": "u", "type": "no_such_command"}]
    env = {**os.environ, "AUTOCUE_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "autocue", "--mode", "rpc", "--model", "autocue/playbook",
                        "--playbook", str(playbook), "--no-session"],
                       input="".join(json.dumps(x) + "\n" for x in lines), capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    got = [json.loads(x) for x in r.stdout.splitlines()]
    assert got == [{"id": str(i), "type": "response", "command": n, "success": False,
                    "error": f"{n} is not supported by autocue's RPC mode"} for i, n in enumerate(names)] + [
        {"id": "u", "type": "response", "command": "no_such_command", "success": False,
         "error": "Unknown command: no_such_command"}]
