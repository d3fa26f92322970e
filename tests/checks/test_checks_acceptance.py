"""The seed's Given/When/Then acceptance criteria, one test each (seeds/003, "Acceptance Criteria")."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from autocue.checks import TestToolError, TestTools
from autocue.loop import read_session

HATS: dict[str, Any] = {
    "hats": {
        "planner": {"triggers": ["task.start"], "publishes": ["build.task"]},
        "builder": {"triggers": ["build.task"], "publishes": ["build.done", "build.blocked"]},
        "reviewer": {"triggers": ["build.done"], "publishes": ["review.approved"]},
    }
}
THREE = [
    {"hat": "planner", "output": '<event topic="build.task">implement</event>'},
    {"hat": "builder", "output": '<event topic="build.done">tests: pass</event>',
     "files": {"src/main.rs": "fn main() {}\n"}},
    {"hat": "reviewer", "output": "## Completed\nLOOP_COMPLETE",
     "files": {".agent/scratchpad.md": "## Completed\n- everything\n"}},
]


def completed_run(tools: TestTools, wid: str = "run_001") -> dict[str, Any]:
    tools.test_setup(wid, config=HATS, scratchpad="## Plan\n(empty)")
    tools.test_mock_backend(wid, THREE)
    return tools.test_run(wid, "Implement user authentication")


# --- Setup and teardown ---------------------------------------------------------------------


def test_setup_creates_an_isolated_registered_workspace(tools: TestTools) -> None:
    # Given no existing workspace / When test_setup(workspace_id="test_001")
    assert tools.list_workspaces() == []
    out = tools.test_setup("test_001")
    # Then an isolated directory is created
    path = Path(out["workspace_path"])
    assert path.is_dir() and path.parent == tools.store.root.resolve() and (path / ".agent").is_dir()
    assert out["workspace_id"] == "test_001" and out["created_files"] == []
    # And the workspace is registered for subsequent operations
    assert tools.list_workspaces() == ["test_001"]
    assert TestTools(tools.store.root).test_mock_backend("test_001", [{"output": "x"}])["configured"] is True


def test_cleanup_removes_all_files_and_deregisters(tools: TestTools) -> None:
    # Given a workspace with fixtures
    out = tools.test_setup("test_001", fixtures={"src/main.rs": "fn main() {}", "README.md": "# hi"})
    assert sorted(out["created_files"]) == ["README.md", "src/main.rs"]
    # When test_cleanup is called
    assert tools.test_cleanup("test_001") == {"deleted": True, "preserved_files": []}
    # Then all files are removed, and the workspace ID is deregistered
    assert not Path(out["workspace_path"]).exists()
    assert tools.list_workspaces() == []
    with pytest.raises(TestToolError) as ei:
        tools.test_inspect("test_001")
    assert ei.value.code == "unknown_workspace"


def test_cleanup_preserve_session_keeps_only_session_jsonl(tools: TestTools) -> None:
    # Given a workspace (with a run) and preserve_session: true
    completed_run(tools)
    ws = tools.store.root / "run_001"
    # When test_cleanup is called
    out = tools.test_cleanup("run_001", preserve_session=True)
    # Then only session.jsonl remains, and all other files are removed
    assert out == {"deleted": True, "preserved_files": [str(ws.resolve() / "session.jsonl")]}
    assert sorted(p.name for p in ws.iterdir()) == ["session.jsonl"]
    assert read_session(ws / "session.jsonl")[-1].data["reason"] == "CompletionPromise"
    assert tools.list_workspaces() == []


# --- Test execution -------------------------------------------------------------------------


def test_three_mock_responses_are_consumed_in_order_and_recorded(tools: TestTools) -> None:
    # Given a configured mock backend with 3 responses / When test_run executes 3 iterations
    result = completed_run(tools)
    assert result["iterations"] == 3 and result["exit_code"] == 0
    assert result["termination_reason"] == "CompletionPromise"
    # Then all mock responses are consumed in order
    assert result["mock_responses_consumed"] == 3 and result["mock_responses_remaining"] == 0
    recs = read_session(result["session_file"])
    assert [r.data["hat"] for r in recs if r.event == "_meta.iteration"] == ["planner", "builder", "reviewer"]
    # And session.jsonl contains all events
    topics = [r.data["topic"] for r in recs if r.event == "bus.publish"]
    assert topics == ["task.start", "build.task", "build.done", "loop.terminate"]
    assert result["events_count"] == len(topics)
    assert {"_meta.loop_start", "ux.terminal.write", "_meta.iteration", "_meta.termination"} <= {r.event for r in recs}
    assert set(result) >= {"exit_code", "termination_reason", "iterations", "elapsed_secs", "session_file",
                           "events_count", "stdout", "stderr"}


def test_slow_mock_with_short_runtime_ends_max_runtime_with_partial_session(tools: TestTools) -> None:
    # Given a mock backend with delay_ms: 5000 / When test_run has max_runtime_secs: 1
    tools.test_setup("slow")
    tools.test_mock_backend("slow", [{"output": "too late", "delay_ms": 5000}])
    result = tools.test_run("slow", "task", max_runtime_secs=1)
    # Then termination_reason is MaxRuntime
    assert result["termination_reason"] == "MaxRuntime" and result["exit_code"] == 2
    # And the partial session is recorded
    recs = read_session(result["session_file"])
    assert recs[0].event == "_meta.loop_start" and recs[1].data["topic"] == "task.start"
    assert recs[-1].event == "_meta.termination" and recs[-1].data["reason"] == "MaxRuntime"
    assert "too late" not in result["stdout"]


def test_real_backend_claude_records_its_responses(tools: TestTools, tmp_path: Path) -> None:
    # Given a "real" backend (claude): here a stand-in claude CLI on PATH, credentials from env
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "claude"
    fake.write_text(
        "#!/bin/sh\n"
        'test -n "$ANTHROPIC_API_KEY" || { echo "no credentials" >&2; exit 1; }\n'
        'echo "claude was asked: $(printf %s "$3" | head -c 20)"\n'
        'echo "LOOP_COMPLETE"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    tools.test_setup("real")
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "ANTHROPIC_API_KEY": "test-key"}
    # When test_run executes
    result = tools.test_run("real", "Say hi", backend="claude", env=env)
    # Then the actual responses are recorded
    assert result["termination_reason"] == "CompletionPromise", result
    assert "claude was asked: # Hat: Coordinator" in result["stdout"]
    # And the session can be inspected for debugging
    recs = tools.test_inspect("real", filter={"event_types": ["ux.terminal.write"]})["records"]
    assert recs and recs[0]["data"]["stdout"] is True


def test_real_backend_missing_cli_is_a_clear_error(tools: TestTools) -> None:
    tools.test_setup("real")
    with pytest.raises(TestToolError) as ei:
        tools.test_run("real", "hi", backend="claude", env={"PATH": "/nonexistent"})
    assert ei.value.code == "backend_unavailable" and "not on PATH" in ei.value.message


# --- Assertions -----------------------------------------------------------------------------


def test_exit_code_assertion_passes_on_exit_0(tools: TestTools) -> None:
    completed_run(tools)
    out = tools.test_assert("run_001", [{"type": "exit_code", "expected": 0}])
    assert out == {"passed": True, "failed_count": 0,
                   "results": [{"assertion": "exit_code", "passed": True, "expected": 0, "actual": 0}]}


def _sequence_run(tools: TestTools) -> None:
    completed_run(tools)  # events: task.start, build.task, build.done (then loop.terminate)


def test_event_sequence_subsequence_passes(tools: TestTools) -> None:
    _sequence_run(tools)
    out = tools.test_assert("run_001", [{"type": "event_sequence", "topics": ["task.start", "build.done"]}])
    assert out["passed"] is True


def test_event_sequence_wrong_order_fails(tools: TestTools) -> None:
    _sequence_run(tools)
    out = tools.test_assert("run_001", [{"type": "event_sequence", "topics": ["build.done", "task.start"]}])
    assert out["passed"] is False and out["failed_count"] == 1
    assert "task.start" in out["results"][0]["message"]


def test_scratchpad_contains_passes(tools: TestTools) -> None:
    tools.test_setup("pad", scratchpad="## Completed\n- login")
    out = tools.test_assert("pad", [{"type": "scratchpad_contains", "pattern": "Completed"}])
    assert out["passed"] is True


def test_file_exists_after_a_run_created_it(tools: TestTools) -> None:
    completed_run(tools)
    out = tools.test_assert("run_001", [{"type": "file_exists", "path": "src/main.rs"}])
    assert out["results"] == [{"assertion": "file_exists", "passed": True, "path": "src/main.rs"}]


# --- Inspection -----------------------------------------------------------------------------


def _session_with(tools: TestTools, wid: str, topics: list[str]) -> None:
    tools.test_setup(wid)
    lines = [f'{{"ts":{1000 + i},"event":"bus.publish","data":{{"topic":"{t}","payload":"p{i}"}}}}'
             for i, t in enumerate(topics)]
    (tools.store.root / wid / "session.jsonl").write_text("\n".join(lines) + "\n")


def test_inspect_limit_truncates(tools: TestTools) -> None:
    # Given a session with 50 events / When limit: 10
    _session_with(tools, "many", [f"t.{i}" for i in range(50)])
    out = tools.test_inspect("many", limit=10)
    # Then only the first 10 events are returned, and truncated: true
    assert len(out["records"]) == 10 and out["records"][0]["data"]["topic"] == "t.0"
    assert out["records"][9]["data"]["topic"] == "t.9"
    assert out["total_matched"] == 50 and out["truncated"] is True
    assert tools.test_inspect("many", limit=50)["truncated"] is False


def test_inspect_topic_glob_filter(tools: TestTools) -> None:
    # Given a session with mixed event types / When filtering topics: ["build.*"]
    _session_with(tools, "mixed", ["task.start", "build.task", "review.done", "build.done", "build.blocked",
                                   "build.task.sub"])
    with open(tools.store.root / "mixed" / "session.jsonl", "a") as fh:
        fh.write('{"ts":2000,"event":"_meta.iteration","data":{"n":1,"hat":"x"}}\n')
    out = tools.test_inspect("mixed", filter={"topics": ["build.*"]})
    # Then only build.task, build.done, build.blocked are returned
    assert [r["data"]["topic"] for r in out["records"]] == ["build.task", "build.done", "build.blocked"]


def test_inspect_timeline_groups_by_iteration_with_durations(tools: TestTools) -> None:
    # Given a completed multi-iteration run / When format: timeline
    completed_run(tools)
    out = tools.test_inspect("run_001", format="timeline")
    # Then events are grouped by iteration, and per-iteration durations are calculated
    tl = out["timeline"]
    assert [(e["iteration"], e["hat"], e["events"]) for e in tl] == [
        (1, "planner", ["task.start → build.task"]),
        (2, "builder", ["build.task → build.done"]),
        (3, "reviewer", ["build.done → (none)"]),
    ]
    assert all(isinstance(e["duration_ms"], int) and e["duration_ms"] >= 0 for e in tl)


# --- Snapshots and diffs --------------------------------------------------------------------


def test_snapshot_then_modify_then_diff_current(tools: TestTools) -> None:
    # Given initial workspace state
    out = tools.test_setup("snap", fixtures={"src/main.rs": "fn main() {\n    one();\n    two();\n}\n",
                                             "old.txt": "bye\n"})
    root = Path(out["workspace_path"])
    # When test_snapshot captures state
    snap = tools.test_snapshot("snap")
    assert snap["snapshot_id"] == "snap_snap_001" and snap["file_count"] == 2
    assert snap["files"]["old.txt"] == "bye\n" and snap["total_bytes"] == sum(
        len(v.encode()) for v in snap["files"].values())
    # And files are modified
    (root / "src/main.rs").write_text("fn main() {\n    one();\n    three();\n}\n")
    (root / "old.txt").unlink()
    (root / "src/utils.rs").write_text("pub fn u() {}\n")
    # And test_diff compares to current
    diff = tools.test_diff("snap", snap["snapshot_id"])
    # Then changed files are identified
    assert diff["changed_files"] == ["src/main.rs"]
    assert diff["added_files"] == ["src/utils.rs"] and diff["deleted_files"] == ["old.txt"]
    # And line-level diffs are provided
    d = diff["diffs"]["src/main.rs"]
    assert (d["additions"], d["deletions"]) == (1, 1)
    (h,) = d["hunks"]
    assert h["start"] == 1 and h["end"] == 4 and "-    two();\n+    three();\n" in h["content"]
    assert diff["diffs"]["src/utils.rs"]["additions"] == 1 and diff["diffs"]["old.txt"]["deletions"] == 1
