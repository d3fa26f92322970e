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
    """An `autocue run` output folder: report.json, per-scenario screenshots (.golden/.actual) and a .cast."""
    run = folder / "run"
    (run / "npm_test" / "screenshots").mkdir(parents=True)
    (run / "broken" / "screenshots").mkdir(parents=True)
    shutil.copy(NPM_TEST, run / "npm_test.yaml")
    (run / "npm_test" / "screenshots" / "after_edits.golden").write_text("$ npm test\nPASS\n")
    (run / "npm_test" / "screenshots" / "after_edits.actual").write_text("$ npm test\nPASS\n")
    (run / "npm_test" / "session.cast").write_text(CAST)
    (run / "broken" / "screenshots" / "final.golden").write_text("all green\nexit 0\n")
    (run / "broken" / "screenshots" / "final.actual").write_text("all green\nexit 1\n")
    report = {"passed": 1, "failed": 1, "scenarios": [
        {"name": "npm_test", "file": "npm_test.yaml", "passed": True, "duration_s": 1.25, "workspace": "/tmp/ws1",
         "out_dir": "npm_test", "failures": [], "screenshots": {"after_edits": "npm_test/screenshots"}},
        {"name": "broken", "file": "missing.yaml", "passed": False, "duration_s": 0.5, "workspace": "/tmp/ws2",
         "out_dir": str(run / "broken"), "failures": [
             {"kind": "screenshot", "message": "screen final differs from its golden", "position": "broken.yaml:9:5"}],
         "screenshots": {}},
    ]}
    (run / "report.json").write_text(json.dumps(report))
    return run
