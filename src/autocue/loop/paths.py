"""Workspace paths: the scratchpad, run data, and confinement of user-given paths.

Public surface: ``SCRATCHPAD``, ``RUN_DIR``, ``EVENTS_FILE``, ``confine(root, path)``,
``PathEscapeError``.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from autocue.loop.errors import PathEscapeError as PathEscapeError

SCRATCHPAD = ".agent/scratchpad.md"
"""The scratchpad every hat reads and updates, relative to the workspace."""
RUN_DIR = ".autocue"
"""Run data of the loop (events file, test-tool state), relative to the workspace."""
EVENTS_FILE = ".autocue/events.jsonl"
"""JSONL events an agent may append instead of printing tags (truncated at each run start)."""


def confine(root: Path, path: str) -> Path:
    """Resolve ``path`` (relative, inside ``root``) and refuse anything that leaves ``root``:
    absolute paths, ``..`` that climbs out, and symlinks pointing outside."""
    if not isinstance(path, str) or not path.strip():
        raise PathEscapeError(f"empty path {path!r}: give a path relative to the workspace")
    if "\x00" in path:
        raise PathEscapeError(f"path {path!r} contains a NUL byte")
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or Path(path).is_absolute() or (len(path) > 1 and path[1] == ":"):
        raise PathEscapeError(
            f"absolute path {path!r} refused: paths must be relative to the workspace ({root})"
        )
    base = root.resolve()
    target = (base / pure).resolve()
    if target != base and not target.is_relative_to(base):
        raise PathEscapeError(
            f"path {path!r} refused: it resolves to {target}, outside the workspace {base} "
            "('..' or a symlink leading out)"
        )
    return target


__all__ = ["EVENTS_FILE", "RUN_DIR", "SCRATCHPAD", "PathEscapeError", "confine"]
