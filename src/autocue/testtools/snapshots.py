"""``test_snapshot`` and ``test_diff``.

Public surface: ``take_snapshot(ws, include, exclude)``, ``save_snapshot``, ``load_snapshot``,
``diff_files(before, after)``, ``file_diff(old, new)``.

A snapshot maps workspace-relative paths to contents (text; a binary file is
``<binary N bytes sha256=...>``, so a change is still detected). The tools' own state
(``.autocue/testtools/``) is never part of a snapshot; the loop's run data (``session.jsonl``
and ``.autocue/``) only when an include pattern names it. Symlinks are not followed out of the
workspace: a link whose target leaves it is listed in ``skipped_files`` instead.
Snapshots are stored as ``.autocue/testtools/snapshots/<id>.json`` with the patterns they
were taken with; ``initial`` is taken by ``test_setup``. Comparing to ``current`` re-applies
the baseline's patterns, so excluded files never show up as added.

Diffs are line-level, from ``difflib``: per file ``additions``, ``deletions`` and ``hunks``
``[{start, end, content}]`` where ``start``/``end`` are 1-based lines of the new file
(``content`` is the unified-diff text of the hunk, with 3 lines of context).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path
from typing import Any

from autocue.testtools.errors import TestToolError
from autocue.testtools.globs import path_matches
from autocue.testtools.workspace import STATE_DIR, Workspace

MAX_TEXT_BYTES = 2_000_000
RUN_DATA = ("session.jsonl", ".autocue/")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _content(path: Path) -> tuple[str, int]:
    raw = path.read_bytes()
    if len(raw) <= MAX_TEXT_BYTES and b"\x00" not in raw:
        try:
            return raw.decode("utf-8"), len(raw)
        except UnicodeDecodeError:
            pass
    return f"<binary {len(raw)} bytes sha256={hashlib.sha256(raw).hexdigest()}>", len(raw)


def take_snapshot(
    ws: Workspace, include: list[str] | None = None, exclude: list[str] | None = None
) -> tuple[dict[str, str], int, list[str]]:
    """``(files, total_bytes, skipped)`` of the workspace now."""
    root = ws.path.resolve()
    files: dict[str, str] = {}
    skipped: list[str] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        keep_dirs = []
        for d in dirnames:
            rel = rel_dir + d
            if rel == STATE_DIR or (rel == ".autocue" and not include):
                continue
            full = Path(dirpath, d)
            if full.is_symlink():
                skipped.append(rel + "/")
                continue
            keep_dirs.append(d)
        dirnames[:] = sorted(keep_dirs)
        for f in sorted(filenames):
            rel = rel_dir + f
            if include and not path_matches(rel, include):
                continue
            if not include and path_matches(rel, RUN_DATA):
                continue
            if exclude and path_matches(rel, exclude):
                continue
            full = Path(dirpath, f)
            if full.is_symlink():
                target = full.resolve()
                if not target.is_relative_to(root) or not target.is_file():
                    skipped.append(rel)
                    continue
            try:
                text, size = _content(full)
            except OSError:
                skipped.append(rel)
                continue
            files[rel] = text
            total += size
    return files, total, skipped


def _snap_path(ws: Workspace, snapshot_id: str) -> Path:
    if not re.match(r"^[A-Za-z0-9_.-]+$", snapshot_id) or ".." in snapshot_id:
        raise TestToolError("invalid_argument", f"invalid snapshot id {snapshot_id!r}")
    return ws.state_dir / "snapshots" / f"{snapshot_id}.json"


def list_snapshots(ws: Workspace) -> list[str]:
    d = ws.state_dir / "snapshots"
    if not d.is_dir():
        return []
    return sorted(p.stem for p in d.glob("*.json"))


def save_snapshot(ws: Workspace, snapshot_id: str, data: dict[str, Any]) -> None:
    p = _snap_path(ws, snapshot_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    ws.write_state(f"snapshots/{snapshot_id}", data)


def load_snapshot(ws: Workspace, snapshot_id: str) -> dict[str, Any]:
    _snap_path(ws, snapshot_id)  # validates the id
    data = ws.read_state(f"snapshots/{snapshot_id}")
    if data is None:
        avail = list_snapshots(ws)
        raise TestToolError(
            "unknown_snapshot",
            f"unknown snapshot {snapshot_id!r} in workspace {ws.id!r}; available: {', '.join(avail) or 'none'} "
            "(use 'initial', 'current', or an id returned by test_snapshot)",
            available=avail,
        )
    return data  # type: ignore[no-any-return]


def next_snapshot_id(ws: Workspace) -> str:
    n = sum(1 for s in list_snapshots(ws) if s != "initial") + 1
    while True:
        sid = f"snap_{ws.id}_{n:03d}"
        if not _snap_path(ws, sid).exists():
            return sid
        n += 1


def file_diff(old: str, new: str) -> dict[str, Any]:
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    hunks: list[dict[str, Any]] = []
    adds = dels = 0
    cur: list[str] | None = None
    start = end = 0
    for line in difflib.unified_diff(a, b, n=3):
        if line.startswith(("---", "+++")) and cur is None:
            continue
        m = _HUNK.match(line)
        if m:
            if cur is not None:
                hunks.append({"start": start, "end": end, "content": "".join(cur)})
            new_start = int(m.group(3))
            new_len = int(m.group(4)) if m.group(4) is not None else 1
            start = new_start
            end = new_start + new_len - 1 if new_len else new_start
            cur = [line]
            continue
        if cur is None:
            continue
        cur.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        if line.startswith("+"):
            adds += 1
        elif line.startswith("-"):
            dels += 1
    if cur is not None:
        hunks.append({"start": start, "end": end, "content": "".join(cur)})
    return {"additions": adds, "deletions": dels, "hunks": hunks}


def diff_files(before: dict[str, str], after: dict[str, str]) -> dict[str, Any]:
    changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
    added = sorted(after.keys() - before.keys())
    deleted = sorted(before.keys() - after.keys())
    diffs: dict[str, Any] = {}
    for p in changed:
        diffs[p] = file_diff(before[p], after[p])
    for p in added:
        diffs[p] = file_diff("", after[p])
    for p in deleted:
        diffs[p] = file_diff(before[p], "")
    return {"changed_files": changed, "added_files": added, "deleted_files": deleted, "diffs": diffs}


__all__ = [
    "diff_files", "file_diff", "list_snapshots", "load_snapshot", "next_snapshot_id", "save_snapshot",
    "take_snapshot",
]
