"""bot.py, an ACP client, tested against ``autocue acp-agent``: the scenario is the agent, the bot runs
for real as a subprocess, and the test checks what the bot did (its output file, its exit code)."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_bot(scenario: str, workspace: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    agent = [sys.executable, "-m", "autocue", "acp-agent", str(HERE / scenario)]
    return subprocess.run([sys.executable, str(HERE / "bot.py"), "--out", str(workspace / "reply.txt"),
                           "--cwd", str(workspace), prompt, "--", *agent],
                          capture_output=True, text=True, timeout=60)


def test_the_bot_approves_the_command_and_saves_the_answer(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Helo\n")
    proc = run_bot("fix_readme.yaml", tmp_path, "Fix the README title")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "reply.txt").read_text() == "Fixed the title: it now reads Hello.\n"
    assert (tmp_path / "README.md").read_text() == "# Hello\n"  # the agent's edit, in the bot's folder
    assert proc.stdout.splitlines() == [
        "[bot] tool: editFile README.md", "[bot]   -> completed",
        "[bot] tool: runCmd head -1 README.md", "[bot] approving: runCmd head -1 README.md", "[bot]   -> completed",
        "[bot] end_turn",
    ]
    assert proc.stderr == ""  # the command's result matched the scenario's: the agent reported nothing


def test_the_bot_exits_1_when_the_agent_refuses(tmp_path: Path) -> None:
    proc = run_bot("refusal.yaml", tmp_path, "Delete everything")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "[bot] refusal"
    assert (tmp_path / "reply.txt").read_text() == "I won't do that.\n"
