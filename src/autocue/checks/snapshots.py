"""``test_snapshot`` and ``test_diff``.

Public surface: ``take_snapshot(ws, include, exclude)``, ``skipped_note``, ``save_snapshot``, ``load_snapshot``,
``diff_files(before, after)``, ``file_diff(old, new)``.

A snapshot maps workspace-relative paths to contents (text; a binary file is
``<binary N bytes sha256=...>``, so a change is still detected). The tools' own state
(``.autocue/checks/``) is never part of a snapshot; the loop's run data (``session.jsonl``
and ``.autocue/``) only when an include pattern names it. Symlinks are not followed out of the
workspace: a link whose target leaves it is listed in ``skipped_files`` instead.
Snapshots are stored as ``.autocue/checks/snapshots/<id>.json`` with the patterns they
were taken with; ``initial`` is taken by ``test_setup``. Comparing to ``current`` re-applies
the baseline's patterns, so excluded files never show up as added.

Diffs are line-level, from ``difflib``: per file ``additions``, ``deletions`` and ``hunks``
``[{start, end, content}]`` where ``start``/``end`` are 1-based lines of the new file
(``content`` is the unified-diff text of the hunk, with 3 lines of context).
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any

from autocue.checks.errors import TestToolError
from autocue.checks.workspace import STATE_DIR, Workspace
from autocue.globs import path_matches
from autocue.loop.safe_files import UnsafeFileError, describe, open_dir, open_regular_at

MAX_TEXT_BYTES = 2_000_000
RUN_DATA = ("session.jsonl", ".autocue/")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _content(raw: bytes) -> str:
    if len(raw) <= MAX_TEXT_BYTES and b"\x00" not in raw:
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode("utf-8")
    return f"<binary {len(raw)} bytes sha256={hashlib.sha256(raw).hexdigest()}>"


def _read_at(dir_fd: int, name: str) -> bytes | str:
    """The bytes of a regular, singly linked file, or why it is skipped (``open_regular_at``)."""
    try:
        fh = open_regular_at(dir_fd, name, Path(name))
    except UnsafeFileError as e:
        return e.what
    except OSError as e:
        return f"unreadable ({e.strerror})"
    with fh:
        return fh.read()


def take_snapshot(
    ws: Workspace, include: list[str] | None = None, exclude: list[str] | None = None
) -> tuple[dict[str, str], int, dict[str, str]]:
    """``(files, total_bytes, skipped)`` of the workspace now; ``skipped`` maps a path (a
    directory ends in ``/``) to why it was left out: symlinks, FIFOs and other special files,
    and hard links (``st_nlink > 1``: maybe a file outside the workspace) are never read."""
    files: dict[str, str] = {}
    skipped: dict[str, str] = {}
    total = 0
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(ws.path, follow_symlinks=False):
        rel_dir = os.path.relpath(dirpath, ws.path)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        keep_dirs = []
        for d in dirnames:
            rel = rel_dir + d
            if rel == STATE_DIR or (rel == ".autocue" and not include):
                continue
            try:
                st = os.stat(d, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                skipped[rel + "/"] = describe(st)
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
            raw = _read_at(dir_fd, f)
            if isinstance(raw, str):
                skipped[rel] = raw
                continue
            files[rel] = _content(raw)
            total += len(raw)
    return files, total, skipped


def skipped_note(skipped: dict[str, str]) -> dict[str, Any]:
    """The result keys naming what a snapshot left out (none when nothing was)."""
    if not skipped:
        return {}
    return {"skipped_files": sorted(skipped), "skipped_reasons": dict(sorted(skipped.items()))}


def _snap_path(ws: Workspace, snapshot_id: str) -> Path:
    if not re.match(r"^[A-Za-z0-9_.-]+$", snapshot_id) or ".." in snapshot_id:
        raise TestToolError("invalid_argument", f"invalid snapshot id {snapshot_id!r}")
    return ws.state_dir / "snapshots" / f"{snapshot_id}.json"


def list_snapshots(ws: Workspace) -> list[str]:
    try:
        with open_dir(ws.path, f"{STATE_DIR}/snapshots") as dfd:
            names = os.listdir(dfd)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except UnsafeFileError as e:
        raise TestToolError("unsafe_workspace_file", str(e), path=str(e.path)) from None
    return sorted(n[: -len(".json")] for n in names if n.endswith(".json") and not n.startswith("."))


def save_snapshot(ws: Workspace, snapshot_id: str, data: dict[str, Any]) -> None:
    _snap_path(ws, snapshot_id)  # validates the id
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
    taken = set(list_snapshots(ws))
    n = sum(1 for s in taken if s != "initial") + 1
    while True:
        sid = f"snap_{ws.id}_{n:03d}"
        _snap_path(ws, sid)
        if sid not in taken:
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
    diffs = {p: file_diff(before.get(p, ""), after.get(p, "")) for p in [*changed, *added, *deleted]}
    return {"changed_files": changed, "added_files": added, "deleted_files": deleted, "diffs": diffs}


__all__ = [
    "diff_files", "file_diff", "list_snapshots", "load_snapshot", "next_snapshot_id", "save_snapshot",
    "take_snapshot",
]
