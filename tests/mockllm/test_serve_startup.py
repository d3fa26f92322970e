"""``autocue serve``'s start-up imports only what answering a request needs.

Start-up to the first answer is compared with aimock's (``benchmarks/bench_mockllm.py
--aimock``) and is almost all imports: starlette, the scripted provider, the assert checks, the
chaos specs and the scenario JSON Schema stay out of a server that does not use them.
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

# serves in a thread, answers one chat request over a plain socket, then lists the modules
FIRST_ANSWER_THEN_MODULES = r"""
import os, socket, sys, threading, time
import autocue.cli.serve as serve
from autocue.cli.main import main

bound = []
def bind(host, port):
    sock = serve_bind(host, port)
    bound.append(sock.getsockname()[1])
    return sock
serve_bind, serve.bind_socket = serve.bind_socket, bind
threading.Thread(target=main, args=(["serve", sys.argv[1], "--port", "0"],), daemon=True).start()
body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", ' \
       b'"function": {"name": "bash", "parameters": {"type": "object"}}}]}'
request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        with socket.create_connection(("127.0.0.1", bound[0]), timeout=5) as s:
            s.sendall(request)
            answer = b"".join(iter(lambda: s.recv(65536), b""))
        break
    except (IndexError, OSError):
        time.sleep(0.01)
print(answer.split(b"\r\n", 1)[0].decode(), b'"tool_calls"' in answer)
print("MODULES", " ".join(sorted(sys.modules)), flush=True)
os._exit(0)
"""

NOT_IMPORTED = ("starlette", "anyio", "h11", "autocue.script.provider", "autocue.llm.events", "autocue.llm.stream",
                "autocue.scenario.assertions", "autocue.scenario.schema", "autocue.scenario.drift",
                "autocue.scenario.writer", "autocue.script.chaos", "autocue.mockllm.checks",
                "autocue.mockllm.expect", "autocue.mockllm.fixture", "autocue.mockllm.wire.fuzz")


def test_serve_answers_without_importing_what_it_does_not_use(tmp_path: Path) -> None:
    scenario = tmp_path / "startup.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", FIRST_ANSWER_THEN_MODULES, str(scenario)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\nHTTP/1.1 200 OK True\nMODULES " in proc.stdout, proc.stdout[:500] + proc.stderr
    modules = set(proc.stdout.split("MODULES ", 1)[1].split())
    assert {"autocue.mockllm.asgi", "autocue.scenario.loader", "autocue.scenario.profiles", "uvicorn"} <= modules
    assert sorted(m for m in modules if m.split(".")[0] in NOT_IMPORTED or m in NOT_IMPORTED) == []


# connects and sends its request while the scenarios are still loading, then reads the answer
CONNECT_DURING_START_UP = r"""
import socket, sys, threading
import autocue.cli.serve as serve
import autocue.mockllm.state as state
from autocue.cli.main import main

bound, early = [], []
def bind(host, port):
    sock = serve_bind(host, port)
    bound.append(sock.getsockname()[1])
    return sock
serve_bind, serve.bind_socket = serve.bind_socket, bind

load = state.MockState.__init__
def loading(self, *args, **kwargs):
    client = socket.create_connection(("127.0.0.1", bound[0]), timeout=30)  # refused unless listening
    body = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
    client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
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
answer = b"".join(iter(lambda: early[0].recv(65536), b""))
print("ANSWER", answer.split(b"\r\n", 1)[0].decode(), b'"tool_calls"' in answer, flush=True)
"""


def test_a_client_that_connects_during_start_up_waits_for_its_answer(tmp_path: Path) -> None:
    scenario = tmp_path / "startup.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", CONNECT_DURING_START_UP, str(scenario)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ANSWER HTTP/1.1 200 OK True" in proc.stdout, proc.stdout + proc.stderr
