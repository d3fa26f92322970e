"""The ``autocue`` agent CLI offers all seven built-ins, so a scenario's listDir/grep/find play
against the mock LLM server (the ``autocue`` profile is detected from the tools it declares)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from all_tools_scenario import SCENARIO

from autocue.mockllm import serve
from autocue.scenario import load_scenario
from autocue.testing.scenario_runner import prepare_repo


def test_the_cli_plays_listdir_grep_and_find_from_the_mock_server(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    prepare_repo(load_scenario(f), work)
    with serve(f, workspace=work, strict_tools=True) as server:
        (home / "models.json").write_text(json.dumps({"providers": {"mock": {
            "base_url": server.base_url + "/v1", "api": "openai-completions", "api_key": "k",
            "models": [{"id": "m", "context_window": 100000}]}}}))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "AUTOCUE_"))}
        env["AUTOCUE_DIR"] = str(home)
        proc = subprocess.run(
            [sys.executable, "-m", "autocue.cli.main", "--mode", "json", "--model", "mock/m", "--cwd", str(work),
             "--no-discover", "--no-session", "Look around."],
            capture_output=True, text=True, timeout=90, env=env,
        )
        status = server.session("k")
    assert proc.returncode == 0, proc.stderr
    ends = [e for e in map(json.loads, proc.stdout.splitlines()) if e.get("type") == "tool_execution_end"]
    assert [e["toolName"] for e in ends] == ["ls", "grep", "find"]
    assert [e["isError"] for e in ends] == [False, False, False], ends
    assert status["remaining"] == 0 and all(a["passed"] for a in status["assertions"]), status
