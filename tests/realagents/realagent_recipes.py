"""Running the real-agent recipes of docs/mock-server.md literally against ``autocue serve``.

Each recipe is a ```bash block of the page; it is found by the command it runs. A run gets a
fresh temp ``HOME``, a workspace, a fresh ``KEY`` and the server's ``PORT``, and a clean
environment (no API keys or ``CI`` of the developer leak in). The CLIs come from
``$AUTOCUE_AGENTS_DIR/bin`` (default ``.agents/bin`` of the repository), else from ``PATH``;
``bash scripts/real-agents.sh`` installs them there.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from doc_blocks import DOCS, ROOT, code_blocks

PAGE = DOCS / "mock-server.md"
SCRIPT = "bash scripts/real-agents.sh"


@dataclass(frozen=True)
class Agent:
    name: str
    command: str
    """The executable, also how its recipe block is recognised (``<command> ``)."""
    package: str
    optional: bool = False


AGENTS = [
    Agent("claude", "claude", "npm @anthropic-ai/claude-code"),
    Agent("codex", "codex", "npm @openai/codex"),
    Agent("pi", "pi", "npm @mariozechner/pi-coding-agent"),
    Agent("opencode", "opencode", "npm opencode-ai"),
    Agent("gemini", "gemini", "npm @google/gemini-cli"),
    Agent("aider", "aider", "PyPI aider-chat", optional=True),
]


def agents_dir() -> Path:
    return Path(os.environ.get("AUTOCUE_AGENTS_DIR") or ROOT / ".agents")


def search_path() -> str:
    return os.pathsep.join([str(agents_dir() / "bin"), str(Path(sys.executable).parent),
                            os.environ.get("PATH", "/usr/bin:/bin")])


def find_cli(agent: Agent) -> str | None:
    return shutil.which(agent.command, path=search_path())


def skip_reason(agent: Agent) -> str:
    extra = " --with-aider" if agent.optional else ""
    return (f"{agent.command} ({agent.package}) is not installed in {agents_dir() / 'bin'} or on PATH: "
            f"run `{SCRIPT}{extra}` (or set AUTOCUE_AGENTS_DIR to where it is installed)")


def recipe(agent: Agent) -> tuple[int, str]:
    """``(line, code)`` of the page's bash block that runs ``agent``."""
    found = [(line, code) for line, code in code_blocks(PAGE, "bash")
             if any(ln.lstrip().startswith(agent.command + " ") or f" {agent.command} " in ln
                    for ln in code.splitlines())]
    if len(found) != 1:
        raise AssertionError(f"{PAGE.name}: expected one bash recipe running {agent.command!r}, found {len(found)}")
    return found[0]


def write_scenario(path: Path, workspace: Path, agent: Agent) -> None:
    """A scenario that writes ``hello.txt`` in ``workspace``, checks it, then says done."""
    target = workspace / "hello.txt"
    if agent.name == "aider":  # no tools: the edit is aider's "whole" format in the reply text
        body = f"""
  - llmResponse:
      - assistant: [[0, "hello.txt\\n```\\nhello from {agent.name}\\n```\\n"]]
"""
    else:
        body = f"""
  - llmResponse:
      - assistant: [[0, "Writing the file."]]
      - writeFile: {{path: {json.dumps(str(target))}, content: "hello from {agent.name}\\n"}}
  - assert:
      fs: {{exists: [hello.txt]}}
  - llmResponse:
      - assistant: [[0, "Done: hello.txt is written."]]
"""
    path.write_text(f"name: write-hello-{agent.name}\ninitialPrompt: create hello.txt\ntimeline:{body}")


@dataclass
class Served:
    url: str
    port: int
    proc: subprocess.Popen[str]

    def session(self, key: str) -> dict[str, Any]:
        r = httpx2.get(f"{self.url}/_autocue/sessions/{key}", timeout=10)
        assert r.status_code == 200, f"no server session {key!r}: the agent never called the server ({r.text})"
        data: dict[str, Any] = r.json()
        return data


@contextmanager
def autocue_serve(scenario: Path, workspace: Path) -> Iterator[Served]:
    """``autocue serve SCENARIO --workspace WS --json`` as a real subprocess on a free port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autocue.cli.main", "serve", str(scenario), "--workspace", str(workspace), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"autocue serve did not start: {proc.stderr.read() if proc.stderr else ''}")
        info = json.loads(line)
        yield Served(info["url"], info["port"], proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@dataclass
class Run:
    returncode: int
    output: str
    seconds: float
    key: str


def run_recipe(agent: Agent, served: Served, home: Path, workspace: Path, timeout: float = 100,
               code: str | None = None) -> Run:
    """Run the page's recipe of ``agent`` (or ``code``) with ``PORT``, a fresh ``KEY`` and ``HOME``."""
    line, page_code = recipe(agent)
    code = page_code if code is None else code
    key = f"{agent.name}-{uuid.uuid4().hex[:12]}"
    tmp = home.parent / "tmp"  # HOME outside the temp dir, as on a real machine: Codex makes no sandbox helper
    tmp.mkdir(exist_ok=True)  # under a CODEX_HOME in the temp dir (see docs/agents.md, bubblewrap)
    env = {"PATH": search_path(), "HOME": str(home), "PORT": str(served.port), "KEY": key, "LANG": "C.UTF-8",
           "TERM": "dumb", "TMPDIR": str(tmp), "NO_COLOR": "1"}
    script = f"set -euo pipefail\n# {PAGE.name}:{line}\n{code}"
    start = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", script], cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: opencode can ignore SIGTERM
        out, _ = proc.communicate()
        out += f"\n[killed after {timeout:.0f} s]"
    return Run(proc.returncode, out, time.monotonic() - start, key)
