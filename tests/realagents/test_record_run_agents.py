"""``autocue record --agent`` with real CLIs (Claude Code, Codex, pi): a whole run recorded from an
``autocue serve`` upstream, in print mode and as a two-turn TUI session, replays green with
``autocue run``; when the agent's behaviour changes at turn 2 (the recorded turn-2 reply now writes
another file) the replay fails at turn 2's workspace check and at no other. Skipped, with the
reason, when the CLI is not installed (``AUTOCUE_AGENTS_DIR=/work/main/.agents``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from realagent_recipes import AGENTS, agents_dir, autocue_serve, find_cli, skip_reason

from autocue.scenario import load_scenario

UPSTREAM = """\
name: upstream
initialPrompt: create hello.txt and count its lines
timeline:
  - llmResponse:
      - assistant: [[0, "Writing the file."]]
      - writeFile: {path: hello.txt, content: "hello\\nworld\\n"}
  - llmResponse:
      - runCmd: {cmd: "wc -l < hello.txt; exit 3"}
  - llmResponse:
      - assistant: [[0, "hello.txt has 2 lines."]]
  - userInputs: [[0, "now add notes"]]
  - llmResponse:
      - writeFile: {path: notes/notes.md, content: "# Notes\\n"}
  - llmResponse:
      - assistant: [[0, "Added notes/notes.md."]]
"""
PROMPT = "create hello.txt and count its lines"


def _autocue(*args: str, cwd: Path, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AUTOCUE_AGENTS_DIR": str(agents_dir()), **env_vars}
    return subprocess.run([sys.executable, "-m", "autocue.cli.main", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def _agent(name: str) -> None:
    agent = next(a for a in AGENTS if a.name == name)
    if find_cli(agent) is None:
        pytest.skip(skip_reason(agent))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["claude", "codex", "pi"])
def test_recorded_tui_run_replays_and_fails_at_the_first_changed_turn(tmp_path: Path, name: str) -> None:
    _agent(name)
    (tmp_path / "up.yaml").write_text(UPSTREAM, encoding="utf-8")
    (tmp_path / "up-ws").mkdir()
    with autocue_serve(tmp_path / "up.yaml", tmp_path / "up-ws") as up:
        r = _autocue("record", "--upstream", up.url, "--agent", name, "--via", "tui", "--input", "now add notes",
                     "--out", "run.yaml", "--timeout", "180", "--", *PROMPT.split(), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (tmp_path / "run.yaml").read_text(encoding="utf-8")
    assert '"command":"wc -l < hello.txt; exit 3","exitCode":3' in text, text  # the shell command and its code
    sc = load_scenario(tmp_path / "run.yaml")
    checks = [e for e in sc.timeline if type(e).__name__ == "AssertStep"]
    assert [c.spec.fs_contents for c in checks] == [  # type: ignore[attr-defined]
        {"hello.txt": "hello\nworld\n"}, {"notes/notes.md": "# Notes\n"}]

    ok = _autocue("run", "run.yaml", "--out", "out", cwd=tmp_path)
    assert ok.returncode == 0 and "PASS" in ok.stdout, ok.stdout + ok.stderr

    changed = text.replace("notes/notes.md", "notes/other.md").replace(  # turn 2's reply, not its check
        '{"contents":{"notes/other.md"', '{"contents":{"notes/notes.md"')
    (tmp_path / "changed.yaml").write_text(changed, encoding="utf-8")
    bad = _autocue("run", "changed.yaml", "--out", "out", cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    # the recording replays strict (server.match: strict): the first request after the changed reply differs
    # from the recorded one, and the run ends there, naming turn 2 (not at its timeout, not at turn 1's check)
    assert "(--match strict): request" in bad.stdout and "(turn 2, step" in bad.stdout, bad.stdout
    assert "timeout" not in bad.stdout and f"changed.yaml:{checks[0].pos.line}:" not in bad.stdout, bad.stdout
    loose = _autocue("run", "changed.yaml", "--match", "loose", "--out", "out", cwd=tmp_path)
    failed = [ln for ln in loose.stdout.splitlines() if "assert:" in ln]  # served anyway: turn 2's check fails
    assert len(failed) == 1 and f"changed.yaml:{checks[1].pos.line}:" in failed[0], loose.stdout
    assert "fs.contents notes/notes.md: expected '# Notes\\n', got '(missing)'" in failed[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["claude", "codex", "pi", "gemini", "opencode"])
def test_recorded_print_run_replays_green(tmp_path: Path, name: str) -> None:
    _agent(name)
    (tmp_path / "up.yaml").write_text(UPSTREAM.split("  - userInputs")[0], encoding="utf-8")
    (tmp_path / "up-ws").mkdir()
    with autocue_serve(tmp_path / "up.yaml", tmp_path / "up-ws") as up:
        r = _autocue("record", "--upstream", up.url, "--agent", name, "--out", "print.yaml", "--", *PROMPT.split(),
                     cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (tmp_path / "print.yaml").read_text(encoding="utf-8")
    assert f'agent: "{name}"' in text and 'expect: {"exitCode":0}' in text and "toolResult" in text
    shell = '"command":"wc -l < hello.txt; exit 3","exitCode":'
    assert shell + ("null" if name == "opencode" else "3") in text, text  # opencode's result states no code
    ok = _autocue("run", "print.yaml", "--out", "out", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr


MCP_UPSTREAM = """\
name: upstream
initialPrompt: echo through the notes server
timeline:
  - llmResponse:
      - agentToolUse: {toolName: mcp__notes__echo, toolCallId: toolu_m1, args: {text: hi}}
  - llmResponse:
      - writeFile: {path: out.txt, content: "done\\n"}
  - llmResponse:
      - assistant: [[0, "Echoed."]]
"""


@pytest.mark.slow
def test_claude_mcp_calls_are_recorded_through_the_tee(tmp_path: Path) -> None:
    import json

    from autocue.testing import fake_mcp_server

    _agent("claude")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_support"))
    import mcp_handlers

    (tmp_path / "up.yaml").write_text(MCP_UPSTREAM, encoding="utf-8")
    (tmp_path / "up-ws").mkdir()
    allow = "--agent-arg=--allowedTools", "--agent-arg=mcp__notes__echo"
    with fake_mcp_server({"echo": mcp_handlers.echo}, transport="stdio") as srv, \
            autocue_serve(tmp_path / "up.yaml", tmp_path / "up-ws") as up:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"notes": srv.config}}), encoding="utf-8")
        r = _autocue("record", "--upstream", up.url, "--agent", "claude", "--mcp-config", str(config), *allow,
                     "--out", "rec.yaml", "--", "echo", "through", "the", "notes", "server", cwd=tmp_path)
        assert r.returncode == 0, r.stdout + r.stderr
        text = (tmp_path / "rec.yaml").read_text(encoding="utf-8")
        assert '"mcp":[{"server":"notes","method":"tools/call","params":{"name":"echo",' in text
        assert '"arguments":{"text":"hi"}' in text
        assert '"result":{"content":[{"text":"echo hi from pid' in text
        ok = _autocue("run", "rec.yaml", "--out", "out", *allow, "--agent-arg=--mcp-config",
                      f"--agent-arg={config}", cwd=tmp_path, MCP_CONNECTION_NONBLOCKING="0")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        calls = [c for c in srv.calls if c[0] == "echo"]
    assert len(calls) == 2  # the recorded run's call and the replay's: the server was reached both times


@pytest.mark.slow
@pytest.mark.parametrize("name", ["claude", "codex", "pi", "gemini", "opencode"])
def test_a_run_recorded_over_acp_replays_over_acp_and_fails_strict_at_a_changed_turn(tmp_path: Path,
                                                                                      name: str) -> None:
    """``autocue record --via acp``: one ``session/prompt`` per input through the CLI's ACP server."""
    from autocue.runner.agents import BUILTIN, find_binary

    _agent(name)
    if BUILTIN[name].acp is None or find_binary(BUILTIN[name], acp=True) is None:
        pytest.skip(f"{name}'s ACP server is not installed: `autocue agents install {name}`")
    (tmp_path / "up.yaml").write_text(UPSTREAM, encoding="utf-8")
    (tmp_path / "up-ws").mkdir()
    with autocue_serve(tmp_path / "up.yaml", tmp_path / "up-ws") as up:
        r = _autocue("record", "--upstream", up.url, "--agent", name, "--via", "acp", "--input", "now add notes",
                     "--out", "acp.yaml", "--", *PROMPT.split(), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    text = (tmp_path / "acp.yaml").read_text(encoding="utf-8")
    assert "# replay: autocue run acp.yaml --via acp" in text and 'match":"strict"' in text.replace(" ", ""), text
    sc = load_scenario(tmp_path / "acp.yaml")
    checks = [e for e in sc.timeline if type(e).__name__ == "AssertStep"]
    assert [c.spec.fs_contents for c in checks] == [  # type: ignore[attr-defined]
        {"hello.txt": "hello\nworld\n"}, {"notes/notes.md": "# Notes\n"}]
    ok = _autocue("run", "acp.yaml", "--via", "acp", "--out", "out", cwd=tmp_path)
    assert ok.returncode == 0 and "PASS" in ok.stdout, ok.stdout + ok.stderr
    changed = text.replace("notes/notes.md", "notes/other.md").replace(
        '{"contents":{"notes/other.md"', '{"contents":{"notes/notes.md"')
    (tmp_path / "changed.yaml").write_text(changed, encoding="utf-8")
    bad = _autocue("run", "changed.yaml", "--via", "acp", "--out", "out", cwd=tmp_path)
    assert bad.returncode == 1 and "(--match strict): request" in bad.stdout and "(turn 2, step" in bad.stdout, \
        bad.stdout
