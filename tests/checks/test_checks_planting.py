"""Property-based planting probes (issue 15): hypothesis plants symlinks (to a file or a
directory outside), hard links to an outside file and FIFOs where autocue keeps its own files
and where the agent's files are, then drives every test tool that reads or writes in the
workspace. Whatever is planted: nothing outside the workspace is read (its secret shows up in
no result and in no file autocue wrote), written or deleted, nothing hangs, and a refusal is a
``TestToolError``, never another exception. Bounded by the suite's hypothesis profile;
``--fuzz-long`` runs it long."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planting import KINDS, no_hang, plant, tree_state

from autocue.checks import TestToolError, TestTools

SECRET = "SECRET-9f1c-outside"
LOCATIONS = (
    "session.jsonl", ".autocue", ".autocue/events.jsonl", ".autocue/session.jsonl", ".autocue/checks",
    ".autocue/checks/workspace.json", ".autocue/checks/config.json", ".autocue/checks/mock.json",
    ".autocue/checks/last_run.json", ".autocue/checks/snapshots",
    ".autocue/checks/snapshots/initial.json", ".agent", ".agent/scratchpad.md", "src", "src/a.txt",
    "data.txt", "src/new.txt", "deep/er/x.txt",
)
RESPONSES = [
    {"output": '<event topic="build.done">ok</event>', "files": {"src/a.txt": "changed\n", "data.txt": "d2\n"}},
    {"output": "LOOP_COMPLETE"},
]
CHECKS = [
    {"type": "file_exists", "path": "data.txt"},
    {"type": "file_contains", "path": "src/a.txt", "pattern": "SECRET"},
    {"type": "file_contains", "path": "data.txt", "pattern": "SECRET"},
    {"type": "file_not_contains", "path": "src/new.txt", "pattern": "SECRET"},
    {"type": "scratchpad_contains", "pattern": "SECRET"},
    {"type": "event_occurred", "topic": "build.done"},
]


def _plants(draw: Any) -> list[tuple[str, str]]:
    chosen = draw(st.lists(st.tuples(st.sampled_from(LOCATIONS), st.sampled_from(KINDS)), min_size=1, max_size=3))
    out: list[tuple[str, str]] = []
    for rel, kind in chosen:  # never plant below a planted link: that would write outside ourselves
        if not any(rel == r or rel.startswith(r + "/") or r.startswith(rel + "/") for r, _ in out):
            out.append((rel, kind))
    return out


plants = st.composite(_plants)


def _files_with_secret(root: Path) -> list[str]:
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath, f)
            st_ = p.lstat()
            if p.is_file() and not p.is_symlink() and st_.st_nlink == 1 and SECRET.encode() in p.read_bytes():
                found.append(str(p))
    return found


@pytest.mark.slow
@given(planted=plants(), before_run=st.booleans())
def test_planted_links_and_fifos_never_leak_write_or_hang(
    tmp_path: Path, planted: list[tuple[str, str]], before_run: bool
) -> None:
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "dir" / "inner.txt").write_text(SECRET + " inner\n")
    tools = TestTools(base / "root")
    ws = Path(tools.test_setup("w", fixtures={"src/a.txt": "a\n", "data.txt": "d\n"},
                               scratchpad="## Plan")["workspace_path"])
    if before_run:
        tools.test_run("w", "t", mock_responses=RESPONSES)
    before = tree_state(outside)
    fifos = []
    for rel, kind in planted:
        p = plant(ws, rel, kind, outside / "secret.txt", outside / "dir")
        if kind == "fifo":
            fifos.append(p)

    results: list[Any] = []

    def call(fn: Callable[[], Any]) -> None:
        try:
            results.append(no_hang(fn, fifos, timeout=5))
        except TestToolError as e:
            results.append(e.to_dict())

    call(lambda: tools.test_mock_backend("w", RESPONSES))
    call(lambda: tools.test_run("w", "t", max_iterations=3))
    call(lambda: tools.test_assert("w", CHECKS))
    call(lambda: tools.test_inspect("w"))
    call(lambda: tools.test_inspect("w", format="summary"))
    call(lambda: tools.test_snapshot("w"))
    call(lambda: tools.test_snapshot("w", include_patterns=["**"]))
    call(lambda: tools.test_diff("w", "initial"))
    call(lambda: tools.test_cleanup("w", preserve_session=True))
    call(lambda: tools.test_setup("w"))
    call(lambda: tools.clean_stale(0))

    text = json.dumps(results, default=str)
    assert SECRET not in text
    for r in results:  # no content assertion on the secret can pass
        if isinstance(r, dict) and "results" in r:
            assert not [x for x in r["results"] if "SECRET" in str(x.get("pattern", "")) and x["passed"]
                        and x["assertion"] != "file_not_contains"]
    assert _files_with_secret(base / "root") == []
    assert tree_state(outside) == before
