"""Issue 15: an agent under test plants symlinks, hard links and FIFOs in its workspace; the
test tools must not read, write, truncate or delete anything outside it, nor hang."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from planting import no_hang, plant, tree_state

from autocue.checks import TestToolError, TestTools
from autocue.loop.session_file import read_session

SECRET = "SECRET-outside-the-workspace"
RUN = [{"output": "done\nLOOP_COMPLETE"}]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text(SECRET + "\n")
    return d


def _ws(tools: TestTools, wid: str = "w") -> Path:
    return Path(tools.test_setup(wid, fixtures={"a.txt": "a\n"}, scratchpad="## Plan")["workspace_path"])


def _code(fn: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(TestToolError) as ei:
        fn(*args, **kwargs)  # type: ignore[operator]
    return ei.value.code


@pytest.mark.parametrize("rel", ["session.jsonl", ".autocue/events.jsonl"])
def test_a_run_never_truncates_a_planted_symlink(tools: TestTools, outside: Path, rel: str) -> None:
    ws = _ws(tools)
    plant(ws, rel, "symlink_file", outside / "secret.txt", outside)
    assert _code(tools.test_run, "w", "t", mock_responses=RUN) == "unsafe_workspace_file"
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


@pytest.mark.parametrize("rel", ["session.jsonl", ".autocue/events.jsonl"])
def test_a_run_replaces_a_planted_hard_link_without_writing_through(
    tools: TestTools, outside: Path, rel: str
) -> None:
    ws = _ws(tools)
    plant(ws, rel, "hardlink", outside / "secret.txt", outside)
    r = tools.test_run("w", "t", mock_responses=RUN)
    assert r["exit_code"] == 0
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert read_session(ws / "session.jsonl")[-1].data["reason"] == "CompletionPromise"


def test_a_linked_run_dir_receives_no_run_data(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    os.rename(ws / ".autocue", outside / "run")  # with the marker: the agent's copy of autocue's dir
    (ws / ".autocue").symlink_to(outside / "run", target_is_directory=True)
    (outside / "run" / "events.jsonl").write_text("keep\n")
    before = tree_state(outside)
    assert _code(tools.test_run, "w", "t", mock_responses=RUN) == "unknown_workspace"
    assert tree_state(outside) == before


def test_autocue_loop_refuses_a_linked_run_dir_in_one_line(tmp_path: Path, outside: Path) -> None:
    import subprocess

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".autocue").symlink_to(outside, target_is_directory=True)
    (tmp_path / "loop.yml").write_text("backend: {type: mock, responses: [{output: LOOP_COMPLETE}]}\n")
    p = subprocess.run([sys.executable, "-m", "autocue.cli.main", "loop", "-c", str(tmp_path / "loop.yml"),
                        "-C", str(ws), "-q", "go"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and f"{ws}/.autocue is a symbolic link" in p.stderr
    assert sorted(x.name for x in outside.iterdir()) == ["secret.txt"]


def test_a_linked_state_dir_receives_no_tool_state(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    state = ws / ".autocue" / "checks"
    os.rename(state, outside / "state")  # the marker moves out with it: the agent's own copy
    state.symlink_to(outside / "state")
    before = tree_state(outside)
    assert _code(tools.test_mock_backend, "w", RUN) == "unknown_workspace"
    assert _code(tools.test_setup, "w") == "workspace_exists"
    assert tree_state(outside) == before


def test_a_linked_snapshot_file_is_not_read_by_diff(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    fake = outside / "snap.json"
    fake.write_text(json.dumps({"files": {"a.txt": SECRET}, "include": None, "exclude": None}))
    (ws / ".autocue/checks/snapshots/leak.json").symlink_to(fake)
    with pytest.raises(TestToolError) as ei:
        tools.test_diff("w", "leak")
    assert ei.value.code == "unsafe_workspace_file" and "symbolic link" in ei.value.message
    assert SECRET not in json.dumps(ei.value.to_dict())


def test_a_hard_link_is_skipped_by_snapshots_with_a_note(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    os.link(outside / "secret.txt", ws / "hl.txt")
    snap = tools.test_snapshot("w")
    assert "hl.txt" not in snap["files"] and SECRET not in json.dumps(snap)
    assert snap["skipped_files"] == ["hl.txt"] and "hard link" in snap["skipped_reasons"]["hl.txt"]
    diff = tools.test_diff("w", "initial")
    assert diff["added_files"] == [] and diff["skipped_files"] == ["hl.txt"]
    assert SECRET not in json.dumps(tools.test_diff("w", snap["snapshot_id"]))


def test_a_hard_link_is_not_read_by_assertions(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    os.link(outside / "secret.txt", ws / "hl.txt")
    res = tools.test_assert("w", [{"type": "file_contains", "path": "hl.txt", "pattern": "SECRET"}])
    assert not res["passed"] and "hard link" in res["results"][0]["message"]


def test_a_symlink_inside_the_workspace_is_a_note_not_content(tools: TestTools) -> None:
    ws = _ws(tools)
    (ws / "alias.txt").symlink_to(ws / "a.txt")
    snap = tools.test_snapshot("w")
    assert snap["files"] == {"a.txt": "a\n", ".agent/scratchpad.md": "## Plan"}
    assert snap["skipped_reasons"] == {"alias.txt": "a symbolic link"}


def test_a_fifo_does_not_hang_snapshot_diff_or_inspect(tools: TestTools) -> None:
    ws = _ws(tools)
    tools.test_run("w", "t", mock_responses=RUN)
    fifo = ws / "pipe"
    os.mkfifo(fifo)
    snap = no_hang(lambda: tools.test_snapshot("w"), [fifo], timeout=5)
    assert snap["skipped_reasons"] == {"pipe": "a FIFO"}
    assert no_hang(lambda: tools.test_diff("w", "initial"), [fifo], timeout=5)["skipped_files"] == ["pipe"]
    session = plant(ws, "session.jsonl", "fifo", fifo, ws)
    assert no_hang(lambda: _code(tools.test_inspect, "w"), [session], timeout=5) == "unsafe_workspace_file"
    assert no_hang(lambda: _code(tools.test_run, "w", "t", mock_responses=RUN), [session], timeout=5) == (
        "unsafe_workspace_file")


def test_mock_files_replace_a_hard_link_instead_of_writing_through(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    plant(ws, "a.txt", "hardlink", outside / "secret.txt", outside)
    r = tools.test_run("w", "t", mock_responses=[{"output": "LOOP_COMPLETE", "files": {"a.txt": "new\n"}}])
    assert r["exit_code"] == 0 and (ws / "a.txt").read_text() == "new\n"
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


def test_an_events_file_linked_out_during_a_run_is_not_read(tools: TestTools, outside: Path) -> None:
    leak = outside / "events.jsonl"
    leak.write_text(json.dumps({"topic": "leaked.secret", "payload": SECRET}) + "\n")
    script = f"rm -f .autocue/events.jsonl && ln -s {leak} .autocue/events.jsonl && echo LOOP_COMPLETE"
    tools.test_setup("w", config={"backend": {"command": "sh", "args": ["-c", script], "prompt_mode": "arg"}})
    r = tools.test_run("w", "t", backend="command", max_iterations=1)
    records = read_session(Path(r["session_file"]))
    assert SECRET not in Path(r["session_file"]).read_text()
    assert not [x for x in records if x.data.get("topic") == "leaked.secret"]
    assert any("not read" in str(x.data.get("reason")) for x in records if x.event == "_meta.event_dropped")
    assert leak.read_text().startswith('{"topic": "leaked.secret"')


# --- data loss: the root and the marker ------------------------------------------------------


def test_setup_refuses_to_delete_a_folder_without_the_marker(tools: TestTools) -> None:
    precious = tools.store.root / "mine"
    precious.mkdir(parents=True)
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(TestToolError) as ei:
        tools.test_setup("mine")
    assert ei.value.code == "workspace_exists" and str(precious) in ei.value.message
    assert "does not delete" in ei.value.message
    assert (precious / "thesis.tex").read_text() == "years of work"


def test_setup_leaves_a_symlink_at_the_id_alone(tools: TestTools, outside: Path) -> None:
    tools.store.root.mkdir(parents=True)
    link = tools.store.root / "lnk"
    link.symlink_to(outside, target_is_directory=True)
    assert _code(tools.test_setup, "lnk") == "workspace_exists"
    assert link.is_symlink() and (outside / "secret.txt").is_file()


def test_setup_replaces_a_registered_workspace_and_a_preserved_leftover(tools: TestTools) -> None:
    _ws(tools)
    assert "already existed (registered)" in tools.test_setup("w")["warnings"][0]
    tools.test_run("w", "t", mock_responses=RUN)
    tools.test_cleanup("w", preserve_session=True)
    assert "left over" in tools.test_setup("w")["warnings"][0]
    assert tools.list_workspaces() == ["w"]


def test_clean_stale_never_deletes_a_folder_without_the_marker(tools: TestTools, outside: Path) -> None:
    root = tools.store.root
    (root / "notours").mkdir(parents=True)
    (root / "notours" / "keep.txt").write_text("keep")
    os.utime(root / "notours", (0, 0))
    ws = _ws(tools, "ours")
    (ws / "out").symlink_to(outside, target_is_directory=True)  # rmtree must not follow it
    os.link(outside / "secret.txt", ws / "hl.txt")
    skipped: list[str] = []
    assert tools.store.clean_stale(0, on_skip=lambda p, why: skipped.append(f"{p.name}: {why}")) == ["ours"]
    assert (root / "notours" / "keep.txt").read_text() == "keep"
    assert skipped == ["notours: no marker .autocue/checks/workspace.json naming 'notours': "
                       "not created by the test tools"]
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


def test_a_preserved_leftover_is_cleaned_when_stale(tools: TestTools) -> None:
    _ws(tools)
    tools.test_run("w", "t", mock_responses=RUN)
    tools.test_cleanup("w", preserve_session=True)
    assert tools.clean_stale(3600) == []
    assert tools.clean_stale(0) == ["w"] and not (tools.store.root / "w").exists()


def test_cleanup_does_not_preserve_a_linked_session(tools: TestTools, outside: Path) -> None:
    ws = _ws(tools)
    plant(ws, "session.jsonl", "symlink_file", outside / "secret.txt", outside)
    out = tools.test_cleanup("w", preserve_session=True)
    assert out["preserved_files"] == [] and "symbolic link" in out["warnings"][0]
    assert not ws.exists() and (outside / "secret.txt").read_text() == SECRET + "\n"


@pytest.fixture
def per_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import tempfile

    monkeypatch.delenv("AUTOCUE_CHECKS_ROOT", raising=False)
    monkeypatch.delenv("AUTOCUE_TESTTOOLS_ROOT", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path / f"autocue-checks-{os.geteuid()}"


def test_the_default_root_is_per_user_and_private(per_user: Path) -> None:
    tools = TestTools()
    assert tools.store.root == per_user
    tools.test_setup("p")
    assert (per_user.stat().st_mode & 0o777) == 0o700 and tools.list_workspaces() == ["p"]


def test_a_symlinked_default_root_is_refused(per_user: Path, outside: Path) -> None:
    per_user.symlink_to(outside, target_is_directory=True)
    with pytest.raises(TestToolError) as ei:
        TestTools().test_setup("p")
    assert ei.value.code == "unsafe_root" and "not a real directory" in ei.value.message
    assert _code(TestTools().clean_stale, 0) == "unsafe_root"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_default_root_writable_by_others_is_refused(per_user: Path) -> None:
    per_user.mkdir(mode=0o700)
    per_user.chmod(0o777)
    with pytest.raises(TestToolError) as ei:
        TestTools().test_setup("p")
    assert ei.value.code == "unsafe_root" and "mode 777" in ei.value.message


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_default_root_owned_by_someone_else_is_refused(per_user: Path) -> None:
    per_user.mkdir(mode=0o700)
    os.chown(per_user, 4242, -1)
    with pytest.raises(TestToolError) as ei:
        TestTools().test_setup("p")
    assert ei.value.code == "unsafe_root" and "owned by uid 4242" in ei.value.message


def test_cli_names_an_unsafe_root_in_one_json_error(per_user: Path, outside: Path) -> None:
    import subprocess

    per_user.symlink_to(outside, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOCUE_CHECKS_ROOT", "AUTOCUE_TESTTOOLS_ROOT")}
    env["TMPDIR"] = str(per_user.parent)
    p = subprocess.run([sys.executable, "-m", "autocue.cli.main", "check", "setup", "p"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    err = json.loads(p.stdout)["error"]
    assert err["code"] == "unsafe_root" and str(per_user) in err["message"]


@pytest.mark.parametrize("fixtures", [{".": "x"}, {"a/b.txt": "x", "a": "y"}, {"a": "x", "a/b.txt": "y"}],
                         ids=["the-workspace", "a-folder-of-another", "below-a-file"])
def test_a_fixture_path_that_is_a_folder_is_a_test_tool_error(tools: TestTools, fixtures: dict[str, str]) -> None:
    """Issue 27 req 12d: test_setup raised IsADirectoryError (NotADirectoryError) from write_text."""
    with pytest.raises(TestToolError) as ei:
        tools.test_setup("w", fixtures=fixtures)
    assert ei.value.code == "invalid_argument" and "a fixture path names a file" in ei.value.message
    assert tools.list_workspaces() == [] and not (tools.store.root / "w").exists()


def test_a_failed_preserving_cleanup_deletes_nothing_and_the_workspace_stays_usable(
        tools: TestTools, outside: Path) -> None:
    """Issue 27 req 12d: a link planted at the root's .preserved made test_cleanup(preserve_session) raise
    UnsafeFileError after deleting the workspace, leaving a folder test_setup refused and nothing could clean."""
    ws = _ws(tools)
    tools.test_run("w", "t", mock_responses=RUN)
    (tools.store.root / ".preserved").symlink_to(outside, target_is_directory=True)
    with pytest.raises(TestToolError) as ei:
        tools.test_cleanup("w", preserve_session=True)
    assert ei.value.code == "unsafe_workspace_file" and "nothing was deleted" in ei.value.message
    assert tools.list_workspaces() == ["w"] and (ws / "session.jsonl").is_file()
    assert os.listdir(outside) == ["secret.txt"]
    (tools.store.root / ".preserved").unlink()
    assert tools.test_cleanup("w", preserve_session=True)["preserved_files"] == [str(ws / "session.jsonl")]
    assert "left over" in tools.test_setup("w")["warnings"][0]
    assert tools.test_cleanup("w") == {"deleted": True, "preserved_files": []}
