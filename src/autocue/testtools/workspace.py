"""Test workspaces: where they live, how they are registered, and path confinement.

Public surface: ``WorkspaceStore(root=None)`` (``create``, ``get``, ``ids``, ``remove``,
``clean_stale``), ``Workspace`` (``path``, ``resolve(path)``, ``read_state``/``write_state``,
``session_file``, ``scratchpad``), ``default_root()``, ``validate_workspace_id``.

Workspaces live in ``root/<workspace_id>``; ``root`` is ``$AUTOCUE_TESTTOOLS_ROOT`` or
``<system temp>/autocue-testtools``. A workspace is registered while its marker
``.autocue/testtools/workspace.json`` exists; the tools' state (config overrides, mock
responses, the last run, snapshots) sits next to it, so separate processes (CLI calls, an MCP
server) share it. Every path argument goes through ``Workspace.resolve``, which refuses
absolute paths, ``..`` that leaves the workspace and symlinks pointing out.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from autocue.loop.paths import SCRATCHPAD, PathEscapeError, confine
from autocue.testtools.errors import TestToolError

STATE_DIR = ".autocue/testtools"
MARKER = f"{STATE_DIR}/workspace.json"
SESSION_FILE = "session.jsonl"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def default_root() -> Path:
    env = os.environ.get("AUTOCUE_TESTTOOLS_ROOT")
    return Path(env) if env else Path(tempfile.gettempdir()) / "autocue-testtools"


def validate_workspace_id(workspace_id: Any) -> str:
    if not isinstance(workspace_id, str) or not _ID.match(workspace_id) or ".." in workspace_id:
        raise TestToolError(
            "invalid_argument",
            f"invalid workspace_id {workspace_id!r}: use 1-128 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit",
        )
    return workspace_id


class Workspace:
    """One registered workspace."""

    def __init__(self, workspace_id: str, path: Path) -> None:
        self.id = workspace_id
        self.path = path

    @property
    def state_dir(self) -> Path:
        return self.path / STATE_DIR

    @property
    def session_file(self) -> Path:
        return self.path / SESSION_FILE

    @property
    def scratchpad(self) -> Path:
        return self.path / SCRATCHPAD

    def resolve(self, path: str) -> Path:
        """A user path inside the workspace, or ``TestToolError(path_outside_workspace)``."""
        try:
            return confine(self.path, path)
        except PathEscapeError as e:
            raise TestToolError("path_outside_workspace", str(e), path=path) from None

    def read_state(self, name: str, default: Any = None) -> Any:
        p = self.state_dir / f"{name}.json"
        try:
            return orjson.loads(p.read_bytes())
        except FileNotFoundError:
            return default

    def write_state(self, name: str, value: Any) -> None:
        p = self.state_dir / f"{name}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(value))
        tmp.replace(p)

    def touch(self) -> None:
        marker = self.path / MARKER
        if marker.exists():
            os.utime(marker)


class WorkspaceStore:
    """The registry of workspaces under ``root``."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    def _ensure_root(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self.root.resolve()

    def ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / MARKER).is_file() and not p.is_symlink())

    def path_of(self, workspace_id: str) -> Path:
        return self._ensure_root() / validate_workspace_id(workspace_id)

    def get(self, workspace_id: Any) -> Workspace:
        wid = validate_workspace_id(workspace_id)
        path = self.path_of(wid)
        if path.is_symlink() or not (path / MARKER).is_file():
            avail = self.ids()
            listed = ", ".join(avail) if avail else "none"
            raise TestToolError(
                "unknown_workspace",
                f"unknown workspace_id {wid!r} (root {self.root}). Available workspace ids: {listed}. "
                "Create it with test_setup first.",
                available=avail,
            )
        ws = Workspace(wid, path)
        ws.touch()
        return ws

    def create(self, workspace_id: Any) -> tuple[Workspace, list[str]]:
        """A fresh, empty, registered workspace; an existing one with that id is replaced (warned)."""
        wid = validate_workspace_id(workspace_id)
        path = self.path_of(wid)
        warnings: list[str] = []
        if path.is_symlink():
            path.unlink()
        elif path.exists():
            registered = (path / MARKER).is_file()
            warnings.append(
                f"workspace {wid!r} already existed ({'registered' if registered else 'left over'}); "
                "it was deleted and created again"
            )
            shutil.rmtree(path)
        path.mkdir(mode=0o700)
        (path / ".agent").mkdir()
        ws = Workspace(wid, path)
        now = time.time()
        ws.write_state("workspace", {"workspace_id": wid, "created_at": now, "pid": os.getpid()})
        return ws, warnings

    def remove(self, workspace_id: Any, *, preserve_session: bool = False) -> list[str]:
        """Delete (and deregister) a workspace; returns the preserved files' absolute paths."""
        ws = self.get(workspace_id)
        preserved: list[str] = []
        keep: bytes | None = None
        if preserve_session and ws.session_file.is_file() and not ws.session_file.is_symlink():
            keep = ws.session_file.read_bytes()
        shutil.rmtree(ws.path)
        if keep is not None:
            ws.path.mkdir(mode=0o700)
            ws.session_file.write_bytes(keep)
            preserved.append(str(ws.session_file))
        return preserved

    def clean_stale(self, max_age_secs: float) -> list[str]:
        """Delete workspaces (and preserved leftovers) untouched for ``max_age_secs``; returns their ids."""
        if not self.root.is_dir():
            return []
        cutoff = time.time() - max_age_secs
        removed: list[str] = []
        for p in self.root.iterdir():
            if p.is_symlink() or not p.is_dir() or not _ID.match(p.name):
                continue
            marker = p / MARKER
            try:
                mtime = marker.stat().st_mtime if marker.is_file() else p.stat().st_mtime
            except OSError:
                continue
            if mtime <= cutoff:
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p.name)
        return sorted(removed)


__all__ = [
    "MARKER", "SESSION_FILE", "STATE_DIR", "Workspace", "WorkspaceStore", "default_root", "validate_workspace_id",
]
