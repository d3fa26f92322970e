"""Inputs for the viewer tests: a branched, labelled session file and an `autocue run` directory."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from autocue.llm.types import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from autocue.session.manager import SessionManager

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NPM_TEST = FIXTURES / "simulate" / "npm_test.yaml"


def page_data(html: str) -> dict[str, Any]:
    """The JSON data block of a viewer page."""
    m = re.search(r'<script type="application/json" id="autocue-data">(.*?)</script>', html, re.S)
    assert m, "no data block in the page"
    return dict(json.loads(m.group(1)))


def branched_session(folder: Path) -> tuple[Path, dict[str, str]]:
    """A session with two branches from the first reply, a label and a compaction; returns (file, ids)."""
    sm = SessionManager.create(folder, folder)
    ids: dict[str, str] = {}
    ids["q1"] = sm.append_message(UserMessage("Fix the bug in calc.py"))
    ids["a1"] = sm.append_message(AssistantMessage([ThinkingContent("Look at divide() first"),
                                                    ToolCall("call_r", "read", {"path": "calc.py"})],
                                                   provider="mock", model="m1", stop_reason="toolUse",
                                                   usage=Usage(input=50, output=10)))
    ids["r1"] = sm.append_message(ToolResultMessage("call_r", "read", [TextContent("def divide(a, b): ...")],
                                                    details={"diff": "-1 old\n+1 new"}))
    ids["old"] = sm.append_message(AssistantMessage([TextContent("first attempt: divide by zero is fine")],
                                                    provider="mock", model="m1"))
    sm.branch(ids["r1"])
    ids["new"] = sm.append_message(AssistantMessage([TextContent("second attempt: guard against zero")],
                                                    provider="mock", model="m1"))
    ids["label"] = sm.append_label_change(ids["new"], "good answer")
    ids["compaction"] = sm.append_compaction("Earlier: the user asked to fix calc.py", ids["new"], 1234)
    path = sm.get_session_file()
    assert path is not None
    return Path(path), ids


CAST = "\n".join([
    json.dumps({"version": 2, "width": 40, "height": 5}),
    json.dumps([0.1, "o", "$ npm test\r\n"]),
    json.dumps([0.5, "o", "PASS src/App.test.js\r\n"]),
    json.dumps([0.9, "o", "\x1b[31mFAIL\x1b[0m src/utils.test.js\r\n"]),
]) + "\n"


def run_dir(folder: Path) -> Path:
    """An `autocue run --out` folder as the executor writes it: report.json (the run started in
    ``folder/project``, where the scenario and its goldens are), per scenario an out_dir with its .cast and
    the .actual screen of a screenshot that differs."""
    project, run = folder / "project", folder / "run"
    shots = project / "goldens" / "cmd"
    (shots / "npm_test/100x30/screenshots").mkdir(parents=True)
    (shots / "broken/100x30/screenshots").mkdir(parents=True)
    shutil.copy(NPM_TEST, project / "npm_test.yaml")
    npm_golden = shots / "npm_test/100x30/screenshots/after_edits.golden"
    npm_golden.write_text("$ npm test\nPASS\n")
    npm_out = run / "cmd/npm_test/100x30/20261124-101500-4242-a"
    npm_out.mkdir(parents=True)
    (npm_out / "session.cast").write_text(CAST)
    broken_golden = shots / "broken/100x30/screenshots/final.golden"
    broken_golden.write_text("all green\nexit 0\n")
    broken_out = run / "cmd/broken/100x30/20261124-101501-4242-b"
    (broken_out / "screenshots").mkdir(parents=True)
    broken_actual = broken_out / "screenshots/final.actual"
    broken_actual.write_text("all green\nexit 1\n")
    diff = f"--- {broken_golden}\n+++ {broken_actual}\n@@ -1,2 +1,2 @@\n all green\n-exit 0\n+exit 1\n"
    report = {"passed": 1, "failed": 1, "goldens": {"written": 0, "compared": 2, "failed": 1}, "cwd": str(project),
              "scenarios": [
        {"name": "npm_test", "file": "npm_test.yaml", "passed": True, "duration_s": 1.25, "workspace": None,
         "out_dir": str(npm_out), "failures": [], "screenshots": {"after_edits": str(npm_golden)},
         "goldens": [{"label": "after_edits", "status": "match", "golden": str(npm_golden), "actual": None}],
         "transcript": ["npm_test.yaml:20:5 Screenshot: after_edits: match"]},
        {"name": "broken", "file": "missing.yaml", "passed": False, "duration_s": 0.5, "workspace": "/tmp/ws2",
         "out_dir": str(broken_out), "failures": [
             {"kind": "golden", "message": f"screenshot 'final' differs from its golden {broken_golden} (actual "
                                           f"screen: {broken_actual}; rerun with --update-goldens to accept it)",
              "position": "broken.yaml:9:5", "diff": diff}],
         "screenshots": {"final": str(broken_actual)},
         "goldens": [{"label": "final", "status": "differs", "golden": str(broken_golden),
                      "actual": str(broken_actual)}],
         "transcript": ["broken.yaml:9:5 Screenshot: final: differs"]},
    ]}
    (run / "report.json").write_text(json.dumps(report))
    return run
