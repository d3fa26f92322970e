"""``autocue diff``: two recordings compared structurally, each difference classified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.cli.main import main
from autocue.scenario import load_scenario_text
from autocue.scenario.drift import diff_scenarios

BASE = """\
# recorded by autocue record
name: "rec"
initialPrompt: "fix the bug"
timeline:
  - llmResponse:
      - think: [[5, "look first"]]
      - agentToolUse: {"toolName":"read","toolCallId":"call_1","args":{"path":"a.py"}}
      - agentToolUse: {"toolName":"read","toolCallId":"call_2","args":{"path":"b.py"}}
    _meta: {"stopReason":"toolUse","usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0},"responseId":"r1"}
  - llmResponse:
      - assistant: [[7, "fixed it"]]
    _meta: {"stopReason":"stop","usage":{"input":150,"output":4,"cacheRead":0,"cacheWrite":0},"responseId":"r2"}
"""


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def _kinds(a: str, b: str) -> list[tuple[int | None, str, str]]:
    r = diff_scenarios(load_scenario_text(a, "a.yaml"), load_scenario_text(b, "b.yaml"))
    return [(d.reply, d.kind, d.severity) for d in r.differences]


def test_identical_and_benign_differences() -> None:
    assert _kinds(BASE, BASE) == []
    other = (BASE.replace("call_1", "call_9").replace('"r2"', '"r7"').replace("[[7,", "[[70,")
             .replace('"input":150', '"input":151'))
    assert _kinds(BASE, other) == [(1, "ids", "benign"), (2, "timing", "benign"), (2, "usage", "benign"),
                                   (2, "ids", "benign")]


@pytest.mark.parametrize(("old", "new", "kind"), [
    ('"fixed it"', '"fixed it, I think"', "text"),
    ('"look first"', '"hmm"', "thinking"),
    ('"path":"b.py"', '"path":"c.py"', "tool calls"),
    ('"initialPrompt: \\"fix the bug\\""', "", "prompt"),
])
def test_regressions(old: str, new: str, kind: str) -> None:
    other = BASE.replace(old, new) if kind != "prompt" else BASE.replace('"fix the bug"', '"fix another bug"')
    assert (kind, "regression") in [(k, s) for _, k, s in _kinds(BASE, other)]


def test_order_of_tool_calls_and_missing_replies_are_regressions() -> None:
    lines = BASE.splitlines(keepends=True)
    swapped = "".join([*lines[:6], lines[7], lines[6], *lines[8:]])
    assert _kinds(BASE, swapped)[0] == (1, "order", "regression")
    shorter = "".join(lines[:9])
    assert _kinds(BASE, shorter) == [(2, "missing reply", "regression")]


def test_cli_exit_codes_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path, "a.yaml", BASE)
    same = _write(tmp_path, "same.yaml", BASE.replace("call_1", "call_x"))
    worse = _write(tmp_path, "worse.yaml", BASE.replace('"fixed it"', '"gave up"'))
    assert main(["diff", str(a), str(same)]) == 0
    out = capsys.readouterr().out
    assert "benign (0 regression(s), 1 benign difference(s), 2 replies compared)" in out
    assert main(["diff", str(a), str(worse)]) == 1
    out = capsys.readouterr().out
    assert "reply 2 (turn 1, step 2): regression: text: fixed it → gave up" in out
    assert main(["diff", "--json", str(a), str(worse)]) == 1
    got = json.loads(capsys.readouterr().out)
    assert got["class"] == "regression" and got["regressions"] == 1
    assert [s["class"] for s in got["steps"]] == ["identical", "regression"]


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.yaml", BASE)
    bad = _write(tmp_path, "bad.yaml", "name: x\ntimeline:\n  - llmRespons: []\n")
    for other in (bad, tmp_path / "missing.yaml"):
        r = subprocess.run([sys.executable, "-m", "autocue", "diff", str(a), str(other)], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert str(other) in r.stderr
