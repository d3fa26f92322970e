"""Every ``autocue`` command given bad input: one clear line on stderr, no traceback, exit 2 or 1.

Each case runs ``python -m autocue`` as a real subprocess in a temp dir (its own autocue dir
and test-tools root) on real bad files: missing, directories, corrupt, wrong types, bad
numbers, a port out of range and a port in use. Exit 2 is a usage error (the command line),
1 a problem found while doing the work.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/tmp"}'
USER = ('{"type":"message","id":"%s","parentId":%s,"timestamp":"2024-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}')
CORRUPT_SESSION = "\n".join([HEADER, USER % ("a1", "null"), "{not json", USER % ("a2", '"a1"')]) + "\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A directory of bad (and a few good) inputs."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x\n")
    (tmp_path / "bad.json").write_text("{bad\n")
    (tmp_path / "bad.yaml").write_text("a: [\n")
    (tmp_path / "corrupt.jsonl").write_text(CORRUPT_SESSION)
    (tmp_path / "loop-corrupt.jsonl").write_text(
        '{"ts":1,"event":"a","data":{}}\n{bad\n{"ts":2,"event":"b","data":{}}\n')
    (tmp_path / "playbook.json").write_text('[{"text": "ok"}]')
    (tmp_path / "ok.loop.yml").write_text("backend:\n  type: mock\n  responses: [{output: x}]\n")
    (tmp_path / "agent.sh").write_text("#!/bin/sh\necho LOOP_COMPLETE\n")  # not executable
    (tmp_path / "noexec.loop.yml").write_text("backend:\n  command: ./agent.sh\n")
    (tmp_path / "hello.yaml").write_text('name: hello\ninitialPrompt: hi\ntimeline:\n'
                                         '  - llmResponse:\n      - assistant: [[0, "hello"]]\n')
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def autocue(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOCUE_", "OPENAI_", "ANTHROPIC_", "GEMINI_"))}
    env.update(AUTOCUE_DIR=str(ws / "home"), AUTOCUE_CHECKS_ROOT=str(ws / "tt"))
    return subprocess.run([sys.executable, "-m", "autocue", *args], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


# (argv, exit code, what the one line says)
CASES: list[tuple[list[str], int, str]] = [
    # report
    (["report", "missing.jsonl"], 1, "missing.jsonl: no such file"),
    (["report", "adir"], 1, "adir: is a directory"),
    (["report", "corrupt.jsonl"], 1, "corrupt.jsonl:3: corrupt line"),
    (["report", "loop-corrupt.jsonl"], 1, "loop-corrupt.jsonl:2: corrupted session record"),
    (["report", "bad.json"], 1, "bad.json:1: not JSON"),
    (["report", "afile/x.jsonl"], 1, "afile/x.jsonl: cannot read the file (Not a directory)"),
    (["report"], 2, "the following arguments are required: file"),
    # serve
    (["serve", "--port", "99999"], 2, "--port: 99999 is out of range; give a port 0-65535"),
    (["serve", "--port", "-1"], 2, "--port: -1 is out of range"),
    (["serve", "--port", "abc"], 2, "--port: 'abc' is not a number"),
    (["serve", "missing.yaml"], 2, "'missing.yaml' does not exist"),
    (["serve", "bad.yaml"], 2, "bad.yaml:1:5: invalid YAML"),
    (["serve", "--workspace", "afile"], 2, "--workspace afile: not a directory"),
    (["serve", "--workspace", "missing"], 2, "--workspace missing: no such directory"),
    (["serve", "--record-dir", "afile"], 2, "--record-dir afile: not a directory"),
    (["serve", "--speed", "-1"], 2, "--speed -1.0: must be 0 or more"),
    (["serve", "--log-level", "loud"], 2, "--log-level: invalid choice: 'loud'"),
    # record and simulate bind as serve does
    (["record", "--upstream", "http://127.0.0.1:9", "--port", "99999"], 2,
     "autocue record: argument --port: 99999 is out of range; give a port 0-65535"),
    (["record", "--upstream", "http://127.0.0.1:9", "--port", "abc"], 2, "--port: 'abc' is not a number"),
    (["record", "--upstream", "http://127.0.0.1:9", "--log-level", "loud"], 2, "--log-level: invalid choice: 'loud'"),
    (["simulate", "hello.yaml", "--port", "-1"], 2, "autocue simulate: argument --port: -1 is out of range"),
    (["simulate", "hello.yaml", "--port", "abc"], 2, "--port: 'abc' is not a number"),
    (["simulate", "hello.yaml", "--log-level", "loud"], 2, "--log-level: invalid choice: 'loud'"),
    # the agent
    (["--session", "adir", "-p", "hi"], 1, "adir: is a directory"),
    (["--session", "corrupt.jsonl", "--playbook", "playbook.json", "-p", "hi"], 1, "corrupt.jsonl:3: corrupt line"),
    (["--session", "afile/s.jsonl", "--playbook", "playbook.json", "-p", "hi"], 1, "afile is a file, not a directory"),
    (["--playbook", "missing.json", "-p", "hi"], 1, "--playbook missing.json: No such file or directory"),
    (["--playbook", "adir", "-p", "hi"], 1, "--playbook adir: Is a directory"),
    (["--playbook", "bad.json", "-p", "hi"], 1, "--playbook bad.json:1:2: invalid JSON"),
    (["--cwd", "missing", "-p", "hi"], 1, "--cwd missing: not a directory"),
    (["--mode", "loud"], 2, "--mode: invalid choice: 'loud'"),
    (["--no-such-option"], 2, "unrecognized arguments: --no-such-option"),
    (["-p", "hi"], 1, "no model selected"),
    (["srve", "x.yaml"], 2, "did you mean 'autocue serve'?"),
    (["veiw", "x"], 2, "'veiw' is not a command; did you mean 'autocue view'?"),
    (["frobnicate"], 1, "('frobnicate' is not an autocue command, so it was taken as a prompt; commands: demo, init,"),
    # loop
    (["loop", "-c", "missing.yml", "go"], 2, "missing.yml: cannot read the loop config"),
    (["loop", "-c", "adir", "go"], 2, "adir: cannot read the loop config"),
    (["loop", "-c", "bad.yaml", "go"], 2, "bad.yaml:1:5: invalid YAML"),
    (["loop", "-c", "ok.loop.yml", "--max-iterations", "abc", "go"], 2, "'abc' is not a whole number"),
    (["loop", "-c", "ok.loop.yml", "--max-iterations", "0", "go"], 2, "--max-iterations: 0: give 1 or more"),
    (["loop", "-c", "ok.loop.yml", "--max-runtime", "-5", "go"], 2, "--max-runtime: -5: give a number of seconds"),
    (["loop", "-c", "ok.loop.yml", "-C", "afile", "go"], 2, "-C afile: not a directory"),
    (["loop", "-c", "ok.loop.yml", "--record-session", "adir", "go"], 2, "--record-session adir: is a directory"),
    (["loop", "-c", "ok.loop.yml", "--record-session", "afile/s.jsonl", "go"], 2, "afile is a file, not a directory"),
    (["loop", "-q", "-c", "noexec.loop.yml", "go"], 1, "'./agent.sh' could not be started"),
    # scenario
    (["scenario", "lint"], 2, "invalid choice: 'lint'"),
    (["scenario", "schema", "--indent", "wide"], 2, "--indent: invalid int value: 'wide'"),
    (["scenario", "check"], 2, "the following arguments are required: FILE_OR_DIR"),
    # the loop's checks
    (["check", "frobnicate"], 2, "invalid choice: 'frobnicate'"),
    (["check", "setup"], 2, "missing workspace_id"),
    (["check", "setup", "w1", "--params", "{bad"], 2, "--params: invalid JSON"),
    (["check", "setup", "w1", "--params", "@missing.json"], 2, "--params: cannot read missing.json"),
    (["check", "setup", "w1", "--fixtures", "[1]"], 2, "--fixtures must be a JSON object"),
    (["check", "setup", "w1", "--root", "afile"], 1, "root afile is not a directory"),
    (["check", "run", "w1", "go", "--max-iterations", "many"], 2, "--max-iterations: invalid int value: 'many'"),
    (["check", "inspect", "nope"], 1, "unknown workspace_id 'nope'"),
    # mcp
    (["mcp", "--stale-after", "soon"], 2, "--stale-after: invalid float value: 'soon'"),
    (["mcp", "--stale-after", "-1"], 2, "--stale-after must be >= 0"),
    (["mcp", "--root", "afile"], 2, "--root afile: is a file, not a directory"),
    # verify-install
    (["verify-install", "adir", "--timeout", "long"], 2, "--timeout: invalid float value: 'long'"),
    (["verify-install", "adir", "--smoke", "missing.yaml"], 2, "smoke file missing.yaml does not exist"),
    # demo
    (["demo", "--loud"], 2, "unrecognized arguments: --loud"),
]


@pytest.mark.parametrize(("argv", "code", "says"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_clear_line(ws: Path, argv: list[str], code: int, says: str) -> None:
    r = autocue(ws, *argv)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert says in lines[0], lines[0]
    assert r.returncode == code, (r.returncode, r.stderr)


@pytest.mark.parametrize("argv", [["serve"], ["record", "--upstream", "http://127.0.0.1:9"],
                                  ["simulate", "hello.yaml"]])
def test_port_in_use(ws: Path, busy_port: int, argv: list[str]) -> None:
    r = autocue(ws, *argv, "--port", str(busy_port))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"autocue {argv[0]}: cannot listen on 127.0.0.1:{busy_port}: the port is in use; "
                                "pick another --port, or --port 0 for any free one")


@pytest.mark.parametrize("argv", [["scenario", "check", "missing.yaml"], ["scenario", "run", "missing.yaml"],
                                  ["verify-install", "missing"]])
def test_commands_that_report_per_input_fail_without_a_traceback(ws: Path, argv: list[str]) -> None:
    """These print a report (a line per file or problem, then a summary), so more than one line."""
    r = autocue(ws, *argv)
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    assert "missing" in r.stdout + r.stderr
