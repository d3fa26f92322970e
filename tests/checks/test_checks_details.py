"""Assertion types, inspect filters, snapshots, the error table and the security rules."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from autocue.checks import ASSERTION_TYPES, TestToolError, TestTools
from autocue.checks.workspace import MARKER

CFG: dict[str, Any] = {"hats": {"planner": {"triggers": ["task.start"]}, "builder": {"triggers": ["build.*"]}}}
RESPONSES = [
    {"hat": "planner", "output": '<event topic="build.task">make src/a.py</event>',
     "files": {"src/a.py": "print('a')\n"}},
    {"hat": "builder", "output": '<event topic="build.done">tests: pass</event>\nLOOP_COMPLETE',
     "files": {".agent/scratchpad.md": "## Completed\n"}},
]


@pytest.fixture
def ran(tools: TestTools) -> TestTools:
    tools.test_setup("w", config=CFG, scratchpad="## Plan")
    tools.test_mock_backend("w", RESPONSES)
    r = tools.test_run("w", "build a")
    assert r["exit_code"] == 0
    return tools


SEED_TYPES = ["exit_code", "termination_reason", "iterations", "file_exists", "file_contains", "file_not_contains",
              "event_occurred", "event_sequence", "event_count", "scratchpad_contains", "no_event", "duration"]


def test_all_twelve_seed_types_exist() -> None:
    assert set(SEED_TYPES) <= set(ASSERTION_TYPES)


PASSING = [
    {"type": "exit_code", "expected": 0},
    {"type": "termination_reason", "expected": "CompletionPromise"},
    {"type": "iterations", "min": 1, "max": 2, "exact": 2},
    {"type": "file_exists", "path": "src/a.py"},
    {"type": "file_contains", "path": "src/a.py", "pattern": r"print\('a'\)"},
    {"type": "file_not_contains", "path": "src/a.py", "pattern": "TODO"},
    {"type": "event_occurred", "topic": "build.done", "payload_pattern": "tests: pass"},
    {"type": "event_sequence", "topics": ["task.start", "build.*"]},
    {"type": "event_count", "topic": "build.*", "exact": 2},
    {"type": "scratchpad_contains", "pattern": "^## Completed$"},
    {"type": "no_event", "topic": "build.blocked"},
    {"type": "duration", "max_secs": 60},
    {"type": "hat_sequence", "hats": ["planner", "builder"]},
    {"type": "hat_transition", "from": "planner", "to": "builder"},
    {"type": "iteration_count", "hat": "builder", "exact": 1},
    {"type": "stdout_contains", "pattern": "LOOP_COMPLETE"},
]
FAILING = [
    {"type": "exit_code", "expected": 2},
    {"type": "termination_reason", "expected": "max_iterations"},
    {"type": "iterations", "max": 1},
    {"type": "file_exists", "path": "src/missing.py"},
    {"type": "file_contains", "path": "src/a.py", "pattern": "nope"},
    {"type": "file_not_contains", "path": "src/a.py", "pattern": "print"},
    {"type": "event_occurred", "topic": "build.done", "payload_pattern": "fail"},
    {"type": "event_sequence", "topics": ["build.done", "build.task"]},
    {"type": "event_count", "topic": "build.task", "min": 2},
    {"type": "scratchpad_contains", "pattern": "Plan"},
    {"type": "no_event", "topic": "build.task"},
    {"type": "duration", "max_secs": 0},
    {"type": "hat_sequence", "hats": ["builder"]},
    {"type": "hat_transition", "from": "builder", "to": "planner"},
    {"type": "iteration_count", "hat": "planner", "min": 2},
    {"type": "stderr_contains", "pattern": "x"},
]


def test_every_type_passes_when_true(ran: TestTools) -> None:
    out = ran.test_assert("w", PASSING)
    assert [r for r in out["results"] if not r["passed"]] == [] and out["passed"] is True


def test_every_type_fails_when_false_and_nothing_short_circuits(ran: TestTools) -> None:
    out = ran.test_assert("w", [*FAILING, {"type": "exit_code", "expected": 0}])
    assert out["failed_count"] == len(FAILING) and out["passed"] is False
    assert len(out["results"]) == len(FAILING) + 1 and out["results"][-1]["passed"] is True
    assert [r["assertion"] for r in out["results"][:-1]] == [a["type"] for a in FAILING]
    assert all(r.get("message") for r in out["results"][:-1])
    missing = out["results"][3]
    assert missing["path"] == "src/missing.py" and "does not exist" in missing["message"]


def test_bad_assertions_fail_with_messages_not_exceptions(ran: TestTools) -> None:
    out = ran.test_assert("w", [
        {"type": "nonsense"}, {"type": "file_contains", "path": "src/a.py", "pattern": "("},
        {"type": "exit_code"}, {"type": "file_exists", "path": "/etc/passwd"}, "not an object",
        {"type": "iterations"},
    ])
    msgs = [r["message"] for r in out["results"]]
    assert out["failed_count"] == 6
    assert "unknown type 'nonsense'" in msgs[0] and "exit_code" in msgs[0]
    assert "not a valid regex" in msgs[1]
    assert "missing parameter 'expected'" in msgs[2]
    assert "absolute path" in msgs[3]
    assert "must be an object" in msgs[4]
    assert "exact" in msgs[5]


def test_assert_before_any_run_says_so(tools: TestTools) -> None:
    tools.test_setup("fresh")
    out = tools.test_assert("fresh", [{"type": "exit_code", "expected": 0},
                                      {"type": "event_occurred", "topic": "x"}])
    assert out["failed_count"] == 2 and "call test_run first" in out["results"][0]["message"]


def test_inspect_filters(ran: TestTools) -> None:
    by_type = ran.test_inspect("w", filter={"event_types": ["_meta.*"]})
    assert {r["event"] for r in by_type["records"]} == {"_meta.loop_start", "_meta.iteration", "_meta.termination"}
    after = ran.test_inspect("w", filter={"after_iteration": 1, "event_types": ["bus.publish"]})
    assert [r["data"]["topic"] for r in after["records"]] == ["build.done", "loop.terminate"]
    before = ran.test_inspect("w", filter={"before_iteration": 2, "event_types": ["bus.publish"]})
    assert [r["data"]["topic"] for r in before["records"]] == ["task.start", "build.task"]
    payload = ran.test_inspect("w", filter={"payload_pattern": r"src/a\.py"})
    assert [r["data"]["topic"] for r in payload["records"]] == ["build.task"]
    with pytest.raises(TestToolError, match="unknown filter key"):
        ran.test_inspect("w", filter={"topic": "x"})
    with pytest.raises(TestToolError, match="unknown format"):
        ran.test_inspect("w", format="xml")


def test_inspect_summary(ran: TestTools) -> None:
    s = ran.test_inspect("w", format="summary")
    assert s["iterations"] == 2 and s["hats_used"] == ["planner", "builder"]
    assert s["by_topic"] == {"task.start": 1, "build.task": 1, "build.done": 1, "loop.terminate": 1}
    assert s["by_type"]["bus.publish"] == 4 and s["total_events"] == sum(s["by_type"].values())
    assert isinstance(s["duration_secs"], float)


def test_corrupted_session_gives_line_number(ran: TestTools) -> None:
    path = ran.store.root / "w" / "session.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:15]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TestToolError) as ei:
        ran.test_inspect("w")
    assert ei.value.code == "session_parse_error" and ei.value.details["line"] == 3
    assert "session.jsonl:3" in ei.value.message
    out = ran.test_assert("w", [{"type": "event_occurred", "topic": "build.task"}])
    assert "session.jsonl:3" in out["results"][0]["message"]


def test_unknown_workspace_lists_available(tools: TestTools) -> None:
    tools.test_setup("alpha")
    tools.test_setup("beta")
    for call in (lambda: tools.test_run("gamma", "t"), lambda: tools.test_assert("gamma", []),
                 lambda: tools.test_snapshot("gamma"), lambda: tools.test_cleanup("gamma")):
        with pytest.raises(TestToolError) as ei:
            call()
        assert ei.value.code == "unknown_workspace" and ei.value.details["available"] == ["alpha", "beta"]
        assert "alpha, beta" in ei.value.message


def test_dirty_workspace_warns_and_proceeds(ran: TestTools) -> None:
    ran.test_mock_backend("w", RESPONSES)
    again = ran.test_run("w", "build a")
    assert again["exit_code"] == 0 and any("dirty" in w for w in again["warnings"])


def test_mock_exhaustion_reports_consumed_count(tools: TestTools) -> None:
    tools.test_setup("ex", config=CFG)
    r = tools.test_run("ex", "t", mock_responses=[RESPONSES[0]])
    assert r["termination_reason"] == "ValidationFailure" and r["exit_code"] == 1
    assert "exhausted" in r["error"] and "1 response(s)" in r["error"]
    assert r["mock_responses_consumed"] == 1 and r["mock_responses_remaining"] == 0


def test_unconsumed_mock_responses_are_reported(tools: TestTools) -> None:
    tools.test_setup("un", config=CFG)
    extra = {"hat": "reviewer", "output": "never used"}
    r = tools.test_run("un", "t", mock_responses=[*RESPONSES, extra])
    assert r["mock_responses_remaining"] == 1 and r["mock_responses_unconsumed"][0]["output"] == "never used"


def test_mock_backend_validation(tools: TestTools) -> None:
    tools.test_setup("m")
    with pytest.raises(TestToolError, match="'output'"):
        tools.test_mock_backend("m", [{"hat": "x"}])
    with pytest.raises(TestToolError, match="unknown field"):
        tools.test_mock_backend("m", [{"output": "x", "outptu": 1}])
    with pytest.raises(TestToolError, match="not a valid regex"):
        tools.test_mock_backend("m", [{"output": "x", "trigger_pattern": "("}])
    with pytest.raises(TestToolError, match="needs responses"):
        tools.test_run("m", "t")
    assert tools.test_mock_backend("m", [{"output": "a"}, {"output": "b"}]) == {"configured": True, "response_count": 2}


def test_trigger_pattern_and_hat_pick_the_first_match(tools: TestTools) -> None:
    tools.test_setup("tp", config=CFG)
    r = tools.test_run("tp", "alpha task", mock_responses=[
        {"hat": "builder", "output": "not me"},
        {"trigger_pattern": "beta", "output": "not me either"},
        {"trigger_pattern": "alpha", "output": "LOOP_COMPLETE"},
    ])
    assert r["exit_code"] == 0 and r["mock_responses_remaining"] == 2


# --- snapshots -----------------------------------------------------------------------------


def test_snapshot_include_exclude(tools: TestTools) -> None:
    tools.test_setup("s", fixtures={"src/a.rs": "a", "src/deep/b.rs": "b", "docs/c.md": "c", "x.log": "l"})
    only_rs = tools.test_snapshot("s", include_patterns=["*.rs"])
    assert sorted(only_rs["files"]) == ["src/a.rs", "src/deep/b.rs"]
    src_top = tools.test_snapshot("s", include_patterns=["src/*"])
    assert sorted(src_top["files"]) == ["src/a.rs"]
    deep = tools.test_snapshot("s", include_patterns=["src/**"], exclude_patterns=["**/deep/**"])
    assert sorted(deep["files"]) == ["src/a.rs"]
    no_logs = tools.test_snapshot("s", exclude_patterns=["*.log", "docs/"])
    assert sorted(no_logs["files"]) == ["src/a.rs", "src/deep/b.rs"]
    assert [only_rs["snapshot_id"], no_logs["snapshot_id"]] == ["snap_s_001", "snap_s_004"]


def test_diff_against_initial_and_between_snapshots(ran: TestTools) -> None:
    d = ran.test_diff("w", "initial")
    # run data (session.jsonl, .autocue/) is not part of the workspace files compared
    assert d["added_files"] == ["src/a.py"] and d["changed_files"] == [".agent/scratchpad.md"]
    assert d["diffs"][".agent/scratchpad.md"]["hunks"][0]["content"].startswith("@@")
    s1 = ran.test_snapshot("w")
    (ran.store.root / "w" / "src" / "a.py").write_text("print('b')\n")
    s2 = ran.test_snapshot("w")
    d2 = ran.test_diff("w", s1["snapshot_id"], s2["snapshot_id"])
    assert d2["changed_files"] == ["src/a.py"] and d2["diffs"]["src/a.py"]["additions"] == 1
    with pytest.raises(TestToolError) as ei:
        ran.test_diff("w", "snap_w_999")
    assert ei.value.code == "unknown_snapshot" and s1["snapshot_id"] in ei.value.details["available"]


def test_diff_with_baseline_patterns_does_not_invent_added_files(tools: TestTools) -> None:
    tools.test_setup("p", fixtures={"a.py": "1\n", "b.txt": "x\n"})
    snap = tools.test_snapshot("p", include_patterns=["*.py"])
    (tools.store.root / "p" / "a.py").write_text("2\n")
    d = tools.test_diff("p", snap["snapshot_id"])
    assert d["changed_files"] == ["a.py"] and d["added_files"] == [] and d["deleted_files"] == []


def test_binary_files_are_compared_by_hash(tools: TestTools) -> None:
    tools.test_setup("bin")
    p = tools.store.root / "bin" / "blob.bin"
    p.write_bytes(b"\x00\x01\x02")
    snap = tools.test_snapshot("bin")
    assert snap["files"]["blob.bin"].startswith("<binary 3 bytes sha256=")
    p.write_bytes(b"\x00\x01\x03")
    assert tools.test_diff("bin", snap["snapshot_id"])["changed_files"] == ["blob.bin"]


# --- security ------------------------------------------------------------------------------


def test_fixture_paths_cannot_leave_the_workspace(tools: TestTools, tmp_path: Path) -> None:
    for bad in ("../escape.txt", "/tmp/abs.txt", "a/../../escape.txt"):
        with pytest.raises(TestToolError) as ei:
            tools.test_setup("sec", fixtures={bad: "x"})
        assert ei.value.code == "path_outside_workspace"
    assert not (tools.store.root / "escape.txt").exists() and not (tmp_path / "escape.txt").exists()
    assert "sec" not in tools.list_workspaces()
    ok = tools.test_setup("sec", fixtures={"a/../b.txt": "inside"})
    assert ok["created_files"] == ["b.txt"]


def test_symlinks_out_are_refused(tools: TestTools, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    out = tools.test_setup("sym")
    ws = Path(out["workspace_path"])
    (ws / "link.txt").symlink_to(secret)
    (ws / "linkdir").symlink_to(tmp_path)
    res = tools.test_assert("sym", [{"type": "file_contains", "path": "link.txt", "pattern": "secret"},
                                    {"type": "file_exists", "path": "linkdir/secret.txt"}])
    assert res["failed_count"] == 2 and all("outside the workspace" in r["message"] for r in res["results"])
    snap = tools.test_snapshot("sym")
    assert "link.txt" not in snap["files"] and "top secret" not in str(snap["files"])
    assert sorted(snap["skipped_files"]) == ["link.txt", "linkdir/"]
    # a file written through the symlinked directory (by the mock agent) is refused too
    r = tools.test_run("sym", "t", mock_responses=[{"output": "x", "files": {"linkdir/evil.txt": "x"}}])
    assert r["termination_reason"] == "ValidationFailure" and "outside the workspace" in r["error"]
    assert not (tmp_path / "evil.txt").exists()


def test_mock_files_cannot_leave_the_workspace(tools: TestTools, tmp_path: Path) -> None:
    tools.test_setup("mf")
    r = tools.test_run("mf", "t", mock_responses=[{"output": "x", "files": {"../../pwned.txt": "x"}}])
    assert r["termination_reason"] == "ValidationFailure" and "refused" in r["error"]
    assert not (tmp_path / "pwned.txt").exists()


def test_workspace_ids_cannot_traverse(tools: TestTools) -> None:
    for bad in ("../x", "a/b", "", ".hidden", "x" * 200, 5):
        with pytest.raises(TestToolError) as ei:
            tools.test_setup(bad)  # type: ignore[arg-type]
        assert ei.value.code == "invalid_argument"


def test_default_root_is_per_user_under_system_temp(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.delenv("AUTOCUE_CHECKS_ROOT", raising=False)
    monkeypatch.delenv("AUTOCUE_TESTTOOLS_ROOT", raising=False)
    assert TestTools().store.root == Path(tempfile.gettempdir()) / f"autocue-checks-{os.geteuid()}"
    assert TestTools().store.per_user
    monkeypatch.setenv("AUTOCUE_CHECKS_ROOT", "/somewhere/else")
    assert TestTools().store.root == Path("/somewhere/else")
    assert not TestTools().store.per_user


def test_the_old_root_variable_is_still_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """``AUTOCUE_TESTTOOLS_ROOT`` (from before ``autocue.checks``) is read when the new name is unset."""
    monkeypatch.delenv("AUTOCUE_CHECKS_ROOT", raising=False)
    monkeypatch.setenv("AUTOCUE_TESTTOOLS_ROOT", "/old/name")
    assert (TestTools().store.root, TestTools().store.per_user) == (Path("/old/name"), False)
    monkeypatch.setenv("AUTOCUE_CHECKS_ROOT", "/new/name")
    assert TestTools().store.root == Path("/new/name")


def test_clean_stale_removes_only_old_workspaces(tools: TestTools) -> None:
    tools.test_setup("old")
    tools.test_setup("new")
    old_marker = tools.store.root / "old" / MARKER
    past = time.time() - 10_000
    os.utime(old_marker, (past, past))
    assert tools.clean_stale(3600) == ["old"]
    assert tools.list_workspaces() == ["new"]


def test_mock_is_the_default_backend(tools: TestTools) -> None:
    tools.test_setup("d", config={"backend": {"command": "sh", "args": ["-c", "echo should-not-run"]}})
    r = tools.test_run("d", "t", mock_responses=[{"output": "LOOP_COMPLETE"}])
    assert r["exit_code"] == 0 and "should-not-run" not in r["stdout"]
    r2 = tools.test_run("d", "t", backend="command")
    assert "should-not-run" in r2["stdout"]
