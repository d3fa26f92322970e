"""``autocue agents``: installed CLIs and whether their version was verified; ``install`` with a
stand-in ``npm`` on PATH (the registry is the edge: the real npm is exercised by
scripts/real-agents.sh)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from autocue.cli.main import main

FAKE_NPM = """#!/bin/sh
# npm install --prefix DIR ... PKG@VERSION: a claude (or its ACP adapter) that prints the version it was asked for
prefix="$3"; for last; do :; done
pkg="${last%@*}"; version="${last##*@}"; exe=claude
case "$pkg" in *claude-agent-acp) exe=claude-agent-acp ;; esac
mkdir -p "$prefix/node_modules/.bin" "$prefix/node_modules/$pkg"
printf '#!/bin/sh\\necho "%s (Claude Code)"\\n' "$version" > "$prefix/node_modules/.bin/$exe"
printf '{"version": "%s"}' "$version" > "$prefix/node_modules/$pkg/package.json"
chmod +x "$prefix/node_modules/.bin/$exe"
echo "$@" >> "$prefix/../npm-calls.log"
"""


def fake_cli(bin_dir: Path, name: str, version: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / name
    exe.write_text(f"#!/bin/sh\necho '{version}'\n")
    exe.chmod(0o755)


@pytest.fixture
def agents_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    monkeypatch.setenv("PATH", str(tmp_path / "path") + os.pathsep + os.path.dirname(sys.executable) + ":/usr/bin:/bin")
    return tmp_path


def test_lists_installed_versions_and_whether_the_profile_was_verified_with_them(
        agents_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_cli(agents_env / "agents" / "bin", "claude", "2.1.197 (Claude Code)")
    fake_cli(agents_env / "path", "codex", "codex-cli 9.9.9")
    assert main(["agents", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["agents"]}
    assert (rows["claude"]["version"], rows["claude"]["verified"]) == ("2.1.197", True)
    assert (rows["codex"]["version"], rows["codex"]["verified"], rows["codex"]["pinned"]) == ("9.9.9", False, "0.169.0")
    assert rows["gemini"]["installed"] is False and rows["aider"]["modes"] == ["print", "tui"]
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "codex      9.9.9        0.169.0    no" in out and "not installed: opencode pi gemini aider" in out


def test_install_runs_npm_for_the_pinned_version_and_links_the_binary(
        agents_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    npm = agents_env / "path" / "npm"
    npm.parent.mkdir()
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    assert main(["agents", "install", "claude"]) == 0
    link = agents_env / "agents" / "bin" / "claude"
    assert link.resolve() == (agents_env / "agents" / "claude" / "node_modules" / ".bin" / "claude").resolve()
    cli, adapter = [x.split() for x in (agents_env / "agents" / "npm-calls.log").read_text().splitlines()]
    assert cli[-1] == "@anthropic-ai/claude-code@2.1.197" and cli[:2] == ["install", "--prefix"]
    # its ACP adapter (`--via acp`), pinned too, in a prefix of its own
    assert adapter[-1] == "@agentclientprotocol/claude-agent-acp@0.101.0"
    assert adapter[2] == str(agents_env / "agents" / "claude-acp")
    assert (agents_env / "agents" / "bin" / "claude-agent-acp").resolve() == (
        agents_env / "agents" / "claude-acp" / "node_modules" / ".bin" / "claude-agent-acp").resolve()
    assert main(["agents", "install", "claude"]) == 0  # already at the pinned versions: npm is not run again
    assert "ACP adapter @agentclientprotocol/claude-agent-acp 0.101.0 already installed" in capsys.readouterr().out
    assert len((agents_env / "agents" / "npm-calls.log").read_text().splitlines()) == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["agents", "install", "nope"], "unknown agent 'nope' (installable: claude, codex"),
    (["agents", "install", "claud"], "unknown agent 'claud'; did you mean 'claude'? (installable: claude, codex"),
    (["agents", "install"], "name the CLIs to install"),
    (["agents", "claude"], "unknown action 'claude': `autocue agents` lists the CLIs"),
    (["agents", "list", "x"], "`autocue agents list` takes no names"),
])
def test_usage_errors_are_one_line_and_exit_2(argv: list[str], message: str, agents_env: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_install_needs_a_directory(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("AUTOCUE_AGENTS_DIR", raising=False)
    assert main(["agents", "install", "pi"]) == 2
    assert "pass --dir DIR or set AUTOCUE_AGENTS_DIR" in capsys.readouterr().err
