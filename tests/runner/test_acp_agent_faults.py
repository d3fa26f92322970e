"""``autocue acp-agent`` on bad input: a malformed line, a message that is no request, an unknown method,
invalid params each get their JSON-RPC error and the agent keeps serving; one stderr line per problem, no
traceback; the end of stdin ends it with exit 0; a scenario it cannot play is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts the agent (about a second: acp.schema builds its models)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "acp"


def _rpc(rid: int, method: str, params: object) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def test_malformed_requests_get_json_rpc_errors_and_the_agent_keeps_serving(tmp_path: Path) -> None:
    lines = [
        "{not json",
        _rpc(1, "initialize", {"protocolVersion": 1}),
        "[1, 2]",
        _rpc(2, "no/such_method", {}),
        _rpc(3, "session/new", {"cwd": 5}),
        _rpc(4, "session/new", {"cwd": str(tmp_path), "mcpServers": []}),
        _rpc(5, "session/prompt", {"sessionId": "sess_9", "prompt": []}),
    ]
    proc = subprocess.run([sys.executable, "-m", "autocue", "acp-agent", str(FIXTURES / "session.yaml")],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr  # the end of stdin: a clean exit
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    by_id = {m.get("id"): m for m in out if m.get("id") is not None}
    nulls = [m["error"]["code"] for m in out if m.get("id") is None]
    assert nulls == [-32700, -32600]
    assert by_id[1]["result"]["agentInfo"]["name"] == "autocue-acp-agent"  # served after the bad line
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["error"]["code"] == -32602
    assert by_id[4]["result"] == {"sessionId": "sess_1"}
    assert by_id[5]["error"]["code"] == -32602 and "no session 'sess_9'" in by_id[5]["error"]["data"]["details"]
    err = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and len(err) == 5, err
    assert err[0].startswith("autocue acp-agent: parse error (-32700)")
    assert err[2] == ('autocue acp-agent: no/such_method (id 2): error -32601 Method not found '
                      '{"method": "no/such_method"}')
    assert "session/new (id 3): error -32602 Invalid params cwd: Input should be a valid string" in err[3]


def test_end_of_input_cancels_a_prompt_waiting_for_the_gone_client(tmp_path: Path) -> None:
    lines = [_rpc(1, "initialize", {"protocolVersion": 1}),
             _rpc(2, "session/new", {"cwd": str(tmp_path), "mcpServers": []}),
             _rpc(3, "session/prompt", {"sessionId": "sess_1", "prompt": [{"type": "text", "text": "go"}]})]
    proc = subprocess.run([sys.executable, "-m", "autocue", "acp-agent", str(FIXTURES / "session.yaml")],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    # it played until it needed the client (the permission request), then ended the prompt cancelled
    assert out[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "cancelled"}}
    updates = [m["params"]["update"] for m in out if m.get("method") == "session/update"]
    assert updates[-1]["sessionUpdate"] == "tool_call" and updates[-1]["title"] == "runCmd grep -c a notes.txt"
    assert (tmp_path / "notes.txt").read_text() == "alpha\nbeta\n"


def test_a_scenario_the_acp_agent_cannot_play_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline:\n  - llmResponse:\n      - assistant: [[0, hi]]\n"
                   "    _meta: {stopReason: nap}\n")
    proc = subprocess.run([sys.executable, "-m", "autocue", "mock-agent", "--format", "acp", str(bad)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"autocue mock-agent: {bad}: {bad}:3:") and "_meta.stopReason 'nap'" in line


def test_an_empty_input_from_dev_null_exits_0() -> None:
    proc = subprocess.run([sys.executable, "-m", "autocue", "acp-agent", str(FIXTURES / "session.yaml")],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
