"""``autocue serve``'s start-up: it listens before it loads, and imports only what answering needs.

Start-up to the first answer is compared with aimock's (``benchmarks/bench_mockllm.py
--aimock``) and is almost all imports: starlette, the scripted provider, the assert checks, the
chaos and fuzz specs and the scenario JSON Schema stay out of a server that does not use them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCENARIO = """\
name: startup
timeline:
  - llmResponse:
      - agentToolUse: {toolName: bash, args: {command: ls}}
  - llmResponse:
      - assistant: [[0, "done"]]
"""

# the child: `autocue serve SCENARIO --port 0` in a thread; `bound` gets the port it listens on
SERVE_IN_A_THREAD = r"""
import os, socket, sys, threading, time
import autocue.cli.serving as serving
from autocue.cli.main import main

bound = []
def bind(host, port):
    sock = serve_bind(host, port)
    bound.append(sock.getsockname()[1])
    return sock
serve_bind, serving.bind_socket = serving.bind_socket, bind
body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", ' \
       b'"function": {"name": "bash", "parameters": {"type": "object"}}}]}'
request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
def answer_line(s):
    answer = b"".join(iter(lambda: s.recv(65536), b""))
    return answer.split(b"\r\n", 1)[0].decode() + " " + str(b'"tool_calls"' in answer)
"""

# answers one chat request over a plain socket, then lists the modules
FIRST_ANSWER_THEN_MODULES = SERVE_IN_A_THREAD + r"""
threading.Thread(target=main, args=(["serve", sys.argv[1], "--port", "0"],), daemon=True).start()
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        with socket.create_connection(("127.0.0.1", bound[0]), timeout=5) as s:
            s.sendall(request)
            print("ANSWER", answer_line(s))
        break
    except (IndexError, OSError):
        time.sleep(0.01)
print("MODULES", " ".join(sorted(sys.modules)), flush=True)
os._exit(0)
"""

# connects and sends its request while the scenarios are still loading, then reads the answer
CONNECT_DURING_START_UP = SERVE_IN_A_THREAD + r"""
import autocue.mockllm.state as state

early = []
load = state.MockState.__init__
def loading(self, *args, **kwargs):
    client = socket.create_connection(("127.0.0.1", bound[0]), timeout=30)  # refused unless listening
    client.sendall(request)
    early.append(client)
    connected.set()
    load(self, *args, **kwargs)
state.MockState.__init__ = loading

def run():
    main(["serve", sys.argv[1], "--port", "0"])
    connected.set()  # main returned: no client connected during start-up
connected = threading.Event()
threading.Thread(target=run, daemon=True).start()
connected.wait(30)
if not early:
    sys.exit("no client could connect while the scenarios loaded")
print("ANSWER", answer_line(early[0]), flush=True)
os._exit(0)
"""

NOT_IMPORTED = ("starlette", "anyio", "h11", "autocue.script.provider", "autocue.llm.events", "autocue.llm.stream",
                "autocue.scenario.assertions", "autocue.scenario.schema", "autocue.scenario.drift",
                "autocue.scenario.writer", "autocue.script.chaos", "autocue.mockllm.checks",
                "autocue.mockllm.expect", "autocue.mockllm.fixture", "autocue.mockllm.wire.fuzz")


def _serve_child(code: str, tmp_path: Path) -> str:
    """The child's output (it must answer its request: 200 with the scripted tool call)."""
    scenario = tmp_path / "startup.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", code, str(scenario)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\nANSWER HTTP/1.1 200 OK True\n" in proc.stdout, proc.stdout[:500] + proc.stderr
    return proc.stdout


def test_serve_answers_without_importing_what_it_does_not_use(tmp_path: Path) -> None:
    out = _serve_child(FIRST_ANSWER_THEN_MODULES, tmp_path)
    modules = set(out.split("MODULES ", 1)[1].split())
    assert {"autocue.mockllm.asgi", "autocue.scenario.loader", "autocue.scenario.profiles", "uvicorn"} <= modules
    assert sorted(m for m in modules if m.split(".")[0] in NOT_IMPORTED or m in NOT_IMPORTED) == []


def test_a_client_that_connects_during_start_up_waits_for_its_answer(tmp_path: Path) -> None:
    _serve_child(CONNECT_DURING_START_UP, tmp_path)


def test_serve_help_lists_every_tool_profile() -> None:
    from autocue.cli.serve import parser
    from autocue.scenario.profiles import PROFILE_NAMES

    text = "".join(parser().format_help().split())  # argparse wraps lines, also at a name's hyphen
    assert "claude-code-2.0" in PROFILE_NAMES
    assert f"toolprofileforeverysession({','.join(PROFILE_NAMES)})" in text
