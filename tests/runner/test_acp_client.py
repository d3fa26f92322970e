"""``autocue run --via acp``: the runner as the ACP client of a small fake agent (a real subprocess speaking
JSON-RPC over stdio, its model the embedded mock LLM server): prompts, permission answers, fs and
terminal calls, ACP checks, ``acp.jsonl``, and the faults (exit, malformed line, no answer, cancel)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_helpers import one, scenario

from autocue.runner.acp_client_host import Host

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "acp" / "fake_agent.py"


def fake(*fault: str) -> str:
    return f"{sys.executable} {FAKE} {{openai_base_url}} {{api_key}}" + "".join(f" {f}" for f in fault)


WRITE = """\
name: acp-write
initialPrompt: create hello.txt
{extra}timeline:
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
      - writeFile: {{path: hello.txt, content: "hello from the agent\\n"}}
{mid}  - llmResponse:
      - assistant: [[0, "Done: hello.txt is written."]]
  - userInputs: [[0, "now show it<enter>"]]
  - llmResponse:
      - runCmd: {{cmd: cat hello.txt}}
  - llmResponse:
      - assistant: [[0, "It says hello."]]
  - assert:
      text: {{contains: ["It says hello."]}}
expect:
{expect}"""


def write_scenario(tmp: Path, *, extra: str = "", mid: str = "", expect: str = "  exitCode: 0\n") -> Path:
    return scenario(tmp, WRITE.format(extra=extra, mid=mid, expect=expect))


def log(result: object) -> list[dict[str, object]]:
    out_dir = Path(result.out_dir)
    return [json.loads(x) for x in (out_dir / "acp.jsonl").read_text().splitlines()]


def test_a_session_over_acp_plays_the_scenario_and_records_every_message(tmp_path: Path) -> None:
    mid = ("  - assert:\n      fs: {exists: [hello.txt]}\n      acp:\n"
           "        toolCalls: [{kind: edit, locations: [hello.txt], status: completed}]\n"
           "        permissions: {count: 1, tools: [write]}\n")
    expect = ("  exitCode: 0\n  artifacts: [{type: file, pattern: hello.txt}]\n  acp:\n"
              "    stopReasons: [end_turn, end_turn]\n    plan: [create hello.txt, now show it]\n"
              "    text: {regex: 'Done: hello\\.txt'}\n"
              "    toolCalls: [{kind: execute, title: cat, status: completed}]\n"
              "    toolCallCount: 2\n")
    r = one(write_scenario(tmp_path, mid=mid, expect=expect), cmd=fake(), via="acp", keep=True)
    assert r.passed, [f.message for f in r.failures]
    assert (Path(r.workspace) / "hello.txt").read_text() == "hello from the agent\n"
    assert r.ended_by_runner == "stdin closed" and r.exit_code == 0
    entries = log(r)
    assert [e["i"] for e in entries] == list(range(len(entries)))
    methods = [(e["dir"], e["msg"].get("method")) for e in entries if "method" in e["msg"]]
    for want in [("out", "initialize"), ("out", "session/new"), ("out", "session/prompt"),
                 ("in", "session/request_permission"), ("in", "fs/write_text_file"), ("in", "terminal/create"),
                 ("in", "terminal/wait_for_exit"), ("in", "terminal/output"), ("in", "terminal/release")]:
        assert want in methods
    prompts = [e["msg"]["params"]["prompt"][0]["text"] for e in entries if e["msg"].get("method") == "session/prompt"]
    assert prompts == ["create hello.txt", "now show it"]  # the <enter> key is not part of the prompt
    init = next(e["msg"] for e in entries if e["msg"].get("method") == "initialize")
    caps = init["params"]["clientCapabilities"]
    assert caps["fs"] == {"readTextFile": True, "writeTextFile": True} and caps["terminal"] is True
    output = next(e["msg"]["result"]["output"] for e in entries
                  if e["dir"] == "out" and "output" in (e["msg"].get("result") or {}))
    assert output == "hello from the agent\n"  # the terminal ran the command for real, in the workspace


def test_acp_checks_fail_naming_the_position_and_the_message(tmp_path: Path) -> None:
    mid = "  - assert:\n      acp:\n        toolCalls: [{kind: delete}]\n"
    r = one(write_scenario(tmp_path, mid=mid, expect="  acp: {stopReasons: [cancelled]}\n"), cmd=fake(), via="acp")
    msgs = {f.position: f.message for f in r.failures}
    [(pos, msg)] = [(p, m) for p, m in msgs.items() if "toolCalls" in m]
    assert pos.endswith("s.yaml:7:5")
    assert msg.startswith("acp.toolCalls[0]: expected {'kind': 'delete'}, got \"#")
    assert "'write hello.txt' (edit, " in msg and "(in session/update))" in msg and "acp.jsonl #" in msg
    [end] = [m for m in msgs.values() if "stopReasons" in m]
    assert end.startswith("expect acp.stopReasons: expected ['cancelled'], got ['end_turn', 'end_turn'] (acp.jsonl #")
    assert "response to session/prompt" in end


def test_a_deny_policy_and_a_timeline_answer_decide_the_permission_requests(tmp_path: Path) -> None:
    extra = ("acp:\n  permissions: {default: allow, tools: {edit: deny}}\n"
             "  mcpServers: [{name: files, command: /bin/true, args: [x], env: {A: b}}]\n")
    mid = "  - assert:\n      fs: {notExists: [hello.txt]}\n      acp: {toolCalls: [{kind: edit, status: failed}]}\n"
    r = one(write_scenario(tmp_path, extra=extra, mid=mid), cmd=fake(), via="acp", keep=True)
    assert r.passed, [f.message for f in r.failures]
    [new] = [e["msg"]["params"] for e in log(r) if e["msg"].get("method") == "session/new"]
    assert new["mcpServers"] == [{"name": "files", "command": "/bin/true", "args": ["x"],
                                  "env": [{"name": "A", "value": "b"}]}]
    assert new["cwd"] == str(Path(r.workspace).resolve())
    assert any("write hello.txt: deny -> no" in t for t in r.transcript)
    # the timeline's answer goes to the next request, over the policy
    mid = ("  - agentPermissionRequest: always\n" + mid.replace("notExists", "exists").replace("failed", "completed"))
    r = one(write_scenario(tmp_path, extra=extra, mid=mid), cmd=fake(), via="acp")
    assert r.passed, [f.message for f in r.failures]
    assert any("write hello.txt: always -> always (the timeline's agentPermissionRequest at" in t for t in r.transcript)


def test_the_client_refuses_paths_outside_the_workspace(tmp_path: Path) -> None:
    import asyncio

    from acp import RequestError

    ws = tmp_path / "ws"
    ws.mkdir()
    host = Host(ws, dict(os.environ))
    host.write("in.txt", "x")
    assert (ws / "in.txt").read_text() == "x"
    assert host.read(str(ws / "in.txt"), None, None).content == "x"
    for bad in ("../out.txt", str(tmp_path / "out.txt")):
        with pytest.raises(RequestError):
            host.write(bad, "y")
    assert not (tmp_path / "out.txt").exists()

    async def terminal() -> tuple[str, int | None]:
        tid = (await host.create_terminal("pwd; echo $X", None, None, None, None)).terminal_id
        code = (await host.wait_for_exit(tid)).exit_code
        out = (await host.terminal_output(tid)).output
        await host.close()
        return out, code

    assert asyncio.run(terminal()) == (f"{ws}\n\n", 0)


@pytest.mark.parametrize(("fault", "wording"), [
    ("exit", "the agent exited with 3 while waiting for session/prompt 'create hello.txt' (from {file}:1:1) to end "
             "before the next prompt (last ACP message: acp.jsonl #4 (out session/prompt))"),
    ("malformed", "the agent wrote a line that is not a JSON-RPC message (not JSON (Expecting value): "
                  "'this is not JSON-RPC', acp.jsonl #5) while waiting for session/prompt 'create hello.txt' (from "
                  "{file}:1:1) to end before the next prompt (last message before it: acp.jsonl #4 (out "
                  "session/prompt))"),
])
def test_an_agent_that_exits_or_writes_a_malformed_line_fails_the_run_in_one_line(
        tmp_path: Path, fault: str, wording: str) -> None:
    path = write_scenario(tmp_path)
    t0 = time.monotonic()
    r = one(path, cmd=fake("--fault", fault), via="acp", timeout=60)
    assert time.monotonic() - t0 < 30  # the fault ends the run, the timeout does not
    [f] = [f for f in r.failures if f.kind == "acp"]
    assert f.message == wording.format(file=path)
    assert "\n" not in f.message
    assert f.position == f"{path}:9:5"  # the userInputs waiting for that prompt


def test_an_agent_that_never_answers_a_prompt_fails_at_the_timeout_naming_the_last_message(tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    t0 = time.monotonic()
    r = one(path, cmd=fake("--fault", "hang"), via="acp", timeout=4)
    took = time.monotonic() - t0
    [f] = [f for f in r.failures if f.kind == "timeout"]
    assert took >= 4
    assert f.message == (f"the scenario did not finish within 4 s (waiting for session/prompt 'create hello.txt' (from "
                         f"{path}:1:1) to end before the next prompt; last ACP message: acp.jsonl #4 (out "
                         "session/prompt)); the agent's process group was killed")
    assert f.position == f"{path}:9:5"
    assert r.ended_by_runner == "SIGKILL"


def test_a_cancelled_prompt_leaves_no_process_behind(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    path = scenario(tmp_path, """\
        name: acp-cancel
        initialPrompt: start something long
        timeline:
          - userCancelSession
          - assert:
              acp: {stopReasons: [cancelled]}
        """)
    r = one(path, cmd=fake("--fault", "child", str(pidfile)), via="acp")
    assert r.passed, [f.message for f in r.failures]
    pid = int(pidfile.read_text())
    stat = Path(f"/proc/{pid}/stat")

    def alive() -> bool:
        try:
            return stat.read_text().split(")")[1].split()[0] != "Z"  # a zombie (not yet reaped by init) is dead
        except OSError:
            return False

    end = time.monotonic() + 5  # SIGKILL was sent to its group; its delivery may take a moment on a loaded machine
    while alive() and time.monotonic() < end:
        time.sleep(0.05)
    assert not alive()
    sent = [e["msg"].get("method") for e in log(r) if e["dir"] == "out"]
    assert "session/cancel" in sent


def test_a_bad_acp_check_is_one_line_naming_its_position(tmp_path: Path) -> None:
    mid = "  - assert:\n      acp: {toolCall: []}\n"
    path = write_scenario(tmp_path, mid=mid)
    r = one(path, cmd=fake(), via="acp")
    [f] = r.failures
    assert f.message == ("acp: unknown check 'toolCall' (known: toolCalls, toolCallCount, permissions, plan, "
                         "stopReasons, text)")
    assert f.position == f"{path}:7:5"


def test_via_acp_needs_an_agent_with_an_acp_server(tmp_path: Path) -> None:
    r = one(write_scenario(tmp_path), agent="mock", via="acp")
    [f] = r.failures
    assert f.kind == "setup" and "--via acp drives an ACP server" in f.message


def test_autocue_view_shows_an_acp_run_as_a_timeline_of_messages(tmp_path: Path) -> None:
    from autocue.view.sources import load_doc

    r = one(write_scenario(tmp_path), cmd=fake(), via="acp")
    assert r.passed, [f.message for f in r.failures]
    alone = load_doc(str(Path(r.out_dir) / "acp.jsonl"))
    texts = [e["text"] for e in alone.events if e["type"] == "info" and e.get("kind") == "acp"]
    assert len(texts) == alone.summary["acp messages"] == len(log(r))
    assert texts[0].startswith("#0 client → agent initialize: {")
    assert any(t.startswith("#1 agent → client response to initialize: ") for t in texts)
    assert any(" agent → client session/update tool_call: " in t for t in texts)
    times = [e["t"] for e in alone.events]
    assert times == sorted(times)
    out = tmp_path / "cli-out"  # `autocue run` writes the report the run's page reads
    proc = subprocess.run([sys.executable, "-m", "autocue.cli.main", "run", str(tmp_path / "s.yaml"), "--via", "acp",
                           "--cmd", fake(), "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run = load_doc(str(out))  # the run's page: the scenario, then its ACP messages
    acp = [e for e in run.events if e.get("kind") == "acp"]
    assert len(acp) == len(texts) and all(e["scenario"] == "acp-write" for e in acp)


def test_the_runner_drives_autocues_own_mock_acp_agent(tmp_path: Path) -> None:
    """Both sides of ACP in autocue: ``autocue acp-agent`` plays the scenario, the runner is its client."""
    path = scenario(tmp_path, """\
        name: both-sides
        initialPrompt: create hello.txt
        timeline:
          - llmResponse:
              - assistant: [[0, "Writing hello.txt."]]
              - writeFile: {path: hello.txt, content: "hello\\n"}
          - assert:
              fs: {exists: [hello.txt]}
              acp: {permissions: {count: 1}}
          - llmResponse:
              - assistant: [[0, "Done."]]
        expect:
          artifacts: [{type: file, pattern: hello.txt}]
          acp: {stopReasons: [end_turn], text: {contains: [Done.]}}
        """)
    cmd = "{python} -m autocue.cli.main acp-agent {scenario} --ask-permission writeFile"
    r = one(path, cmd=cmd, via="acp")
    assert r.passed, [f.message for f in r.failures]
    assert any("-> allow" in t or "allow ->" in t for t in r.transcript if t.startswith("permission:"))
