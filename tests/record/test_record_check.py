"""``autocue record --check``: a recording's conversation replayed against a live upstream
(an ``autocue serve`` playing a slightly different scenario), the drift of each reply reported."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.mockllm import serve
from autocue.record.check import CheckOptions, check_drift
from autocue.scenario import load_scenario

RECORDED = """\
# recorded by autocue record
name: "rec"
initialPrompt: "fix the bug"
timeline:
  - llmResponse:
      - assistant: [[5, "Let me look."]]
      - agentToolUse: {"toolName":"read","toolCallId":"call_1","args":{"path":"a.py"}}
    _meta: {"stopReason":"toolUse","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0},"model":"m1"}
  - llmResponse:
      - assistant: [[5, "Fixed."]]
    _meta: {"stopReason":"stop","usage":{"input":20,"output":2,"cacheRead":0,"cacheWrite":0},"model":"m1"}
  - userInputs: [[0, "thanks"]]
  - llmResponse:
      - assistant: [[5, "You are welcome."]]
"""

SAME_BUT_IDS = RECORDED.replace("call_1", "call_77")
DRIFTED = RECORDED.replace('"Fixed."', '"I could not fix it."')


def _files(tmp: Path, upstream: str) -> tuple[Path, Path]:
    rec, up = tmp / "rec.yaml", tmp / "upstream.yaml"
    rec.write_text(RECORDED)
    up.write_text(upstream)
    return rec, up


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "gemini"])
def test_check_classifies_each_step_on_every_api(api: str, tmp_path: Path) -> None:
    rec, up = _files(tmp_path, DRIFTED)
    with serve(up) as upstream:
        report = asyncio.run(check_drift(load_scenario(rec), CheckOptions(upstream.base_url, api, "m1", f"k-{api}")))
        journal = upstream.requests(f"k-{api}")
    verdicts = [s.verdict for s in report.steps]
    assert verdicts[:2] == ["benign", "regression"]  # reply 1: its recorded usage differs from the live one
    assert verdicts[2] in ("identical", "benign")  # only the measured timing can differ
    assert report.verdict == "regression"
    (reg,) = report.regressions
    assert (reg.reply, reg.kind, reg.a, reg.b) == (2, "text", "Fixed.", "I could not fix it.")
    assert [q["last"]["role"] for q in journal] == ["user", "tool", "user"]
    assert journal[0]["tools"] == ["read"] and journal[2]["last"]["text"] == "thanks"


def test_cli_exit_codes_per_step_lines_and_json(tmp_path: Path) -> None:
    rec, up = _files(tmp_path, SAME_BUT_IDS)
    env = {**os.environ, "UPSTREAM_KEY": "k-cli"}
    with serve(up) as upstream:
        cmd = [sys.executable, "-m", "autocue", "record", "--check", str(rec), "--upstream", upstream.base_url,
               "--api-key-env", "UPSTREAM_KEY"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "benign (0 regression(s)" in r.stdout
        assert 'reply 1 (turn 1, step 1): benign: say("Let me look.") + call("read"' in r.stdout
        assert 'benign: ids: ["call_1"] → ["call_77"]' in r.stdout
        assert upstream.requests("k-cli")[0]["model"] == "m1"  # the recording's model by default
    (tmp_path / "upstream.yaml").write_text(DRIFTED)
    with serve(up) as upstream:
        r = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 1, r.stdout + r.stderr
        got = json.loads(r.stdout)
        assert got["class"] == "regression" and got["steps"][1]["class"] == "regression"


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "autocue", "record", "--check", str(tmp_path / "none.yaml"),
                        "--upstream", "http://127.0.0.1:9"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "none.yaml" in r.stderr
