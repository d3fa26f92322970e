"""Test workspaces: where they live, how they are registered, and path confinement.

Public surface: ``WorkspaceStore(root=None)`` (``create``, ``get``, ``ids``, ``remove``,
``clean_stale``), ``Workspace`` (``path``, ``resolve(path)``, ``read_file``,
``read_state``/``write_state``, ``session_file``, ``scratchpad``), ``default_root()``,
``validate_workspace_id``.

Workspaces live in ``root/<workspace_id>``; ``root`` is the ``root`` argument, else
``$AUTOCUE_CHECKS_ROOT`` (its old name ``$AUTOCUE_TESTTOOLS_ROOT`` is still read), else the
per-user ``<system temp>/autocue-checks-<uid>``, created 0700 and refused when it is a
symlink, owned by someone else or writable by others. A workspace is
registered while its marker ``.autocue/checks/workspace.json`` (naming its id) exists; the
tools' state (config overrides, mock responses, the last run, snapshots) sits next to it, so
separate processes (CLI calls, an MCP server) share it.

The agent under test can plant anything in its workspace, so: state files are read and written
without following links (``autocue.loop.safe_files``); nothing is deleted unless it carries the
marker (checked without following links) or is a leftover of ``test_cleanup(preserve_session)``
noted in ``root/.preserved/``; deletion never follows links. Every path argument goes through
``Workspace.resolve``, which refuses absolute paths, ``..`` that leaves the workspace and
symlinks pointing out.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from autocue.checks.errors import TestToolError
from autocue.loop.paths import SCRATCHPAD, PathEscapeError, confine
from autocue.loop.safe_files import UnsafeFileError, lstat_in, open_dir, read_regular, write_atomic

STATE_DIR = ".autocue/checks"
MARKER = f"{STATE_DIR}/workspace.json"
SESSION_FILE = "session.jsonl"
PRESERVED_DIR = ".preserved"
"""Notes (``<root>/.preserved/<id>``) of folders test_cleanup(preserve_session) left behind."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


ROOT_ENV = "AUTOCUE_CHECKS_ROOT"
OLD_ROOT_ENV = "AUTOCUE_TESTTOOLS_ROOT"
"""The variable's name from before the package was ``autocue.checks``: read when ``ROOT_ENV`` is unset."""


def _root_from_env() -> str | None:
    return os.environ.get(ROOT_ENV) or os.environ.get(OLD_ROOT_ENV) or None


def default_root() -> Path:
    """``$AUTOCUE_CHECKS_ROOT`` (else its old name ``$AUTOCUE_TESTTOOLS_ROOT``), else the per-user
    ``<system temp>/autocue-checks-<uid>``."""
    env = _root_from_env()
    return Path(env) if env else Path(tempfile.gettempdir()) / f"autocue-checks-{os.geteuid()}"


def _unsafe(path: Path, why: str, code: str = "unsafe_workspace_file") -> TestToolError:
    return TestToolError(code, why, path=str(path))


def validate_workspace_id(workspace_id: Any) -> str:
    if not isinstance(workspace_id, str) or not _ID.match(workspace_id) or ".." in workspace_id:
        raise TestToolError(
            "invalid_argument",
            f"invalid workspace_id {workspace_id!r}: use 1-128 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit",
        )
    return workspace_id


class Workspace:
    """One registered workspace. Its state files are read and written through
    ``autocue.loop.safe_files`` (no link below the workspace is followed)."""

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

    def read_file(self, rel: str) -> bytes:
        """A regular, singly linked file of the workspace (``FileNotFoundError`` when missing);
        a link, FIFO or other special file is ``TestToolError(unsafe_workspace_file)``."""
        try:
            return read_regular(self.path, rel)
        except UnsafeFileError as e:
            raise _unsafe(e.path, str(e)) from None
        except NotADirectoryError:
            raise FileNotFoundError(rel) from None

    def read_state(self, name: str, default: Any = None) -> Any:
        rel = f"{STATE_DIR}/{name}.json"
        try:
            raw = self.read_file(rel)
        except FileNotFoundError:
            return default
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise _unsafe(self.path / rel, f"test-tool state file {self.path / rel} is corrupted ({e}); "
                          "run test_setup again", code="corrupt_state") from None

    def write_state(self, name: str, value: Any) -> None:
        try:
            write_atomic(self.path, f"{STATE_DIR}/{name}.json", orjson.dumps(value))
        except UnsafeFileError as e:
            raise _unsafe(e.path, str(e)) from None

    def touch(self) -> None:
        parent, name = MARKER.rsplit("/", 1)
        with contextlib.suppress(OSError), open_dir(self.path, parent) as dfd:
            os.utime(name, dir_fd=dfd, follow_symlinks=False)


def _registered(path: Path, workspace_id: str) -> os.stat_result | None:
    """The marker's lstat when ``path`` is a real directory holding a regular marker naming
    ``workspace_id`` (nothing followed); else ``None``."""
    try:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            return None
        data = orjson.loads(read_regular(path, MARKER))
        marker = lstat_in(path, MARKER)
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("workspace_id") != workspace_id:
        return None
    return marker


def _rmtree(path: Path) -> None:
    """Delete the real directory ``path`` without following any link in it."""
    if not getattr(shutil.rmtree, "avoids_symlink_attacks", False):  # pragma: no cover - Linux/macOS have it
        raise TestToolError("unsupported_platform", f"not deleting {path}: this platform's rmtree may follow links")
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise _unsafe(path, f"not deleting {path}: it is not a real directory", code="not_a_workspace")
    shutil.rmtree(path)


class WorkspaceStore:
    """The registry of workspaces under ``root`` (see module docstring)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.per_user = root is None and not _root_from_env()
        self.root = Path(root) if root is not None else default_root()

    def _check_root(self) -> None:
        """The per-user default root must be a real directory of ours that nobody else can write."""
        if not self.per_user:
            if not self.root.is_dir():
                raise _unsafe(self.root, f"workspace root {self.root} is not a directory", code="unsafe_root")
            return
        st = self.root.lstat()
        what = None
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            what = "is not a real directory (a symbolic link or a file)"
        elif st.st_uid != os.geteuid():
            what = f"is owned by uid {st.st_uid}, not by you (uid {os.geteuid()})"
        elif st.st_mode & 0o022:
            what = f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
        if what:
            raise _unsafe(self.root, f"workspace root {self.root} {what}: refusing to use it. Remove it, or give "
                          "another root with --root or AUTOCUE_CHECKS_ROOT", code="unsafe_root")

    def _ensure_root(self) -> Path:
        try:
            self.root.mkdir(parents=not self.per_user, exist_ok=True, mode=0o700)
        except FileExistsError:
            pass  # a file or a dangling link: _check_root names it
        except OSError as e:
            raise _unsafe(self.root, f"cannot create the workspace root {self.root}: {e.strerror}",
                          code="unsafe_root") from None
        self._check_root()
        return self.root.resolve()

    def _existing_root(self) -> Path | None:
        if not os.path.lexists(self.root):
            return None
        self._check_root()
        return self.root.resolve()

    def _preserved(self, workspace_id: str) -> Path:
        return self.root / PRESERVED_DIR / workspace_id

    def ids(self) -> list[str]:
        root = self._existing_root()
        if root is None:
            return []
        return sorted(p.name for p in root.iterdir() if _ID.match(p.name) and _registered(p, p.name))

    def path_of(self, workspace_id: str) -> Path:
        return self._ensure_root() / validate_workspace_id(workspace_id)

    def get(self, workspace_id: Any) -> Workspace:
        wid = validate_workspace_id(workspace_id)
        path = self.path_of(wid)
        if _registered(path, wid) is None:
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

    def _leftover(self, path: Path, wid: str) -> bool:
        """A folder ``test_cleanup(preserve_session)`` left: only ``session.jsonl``, and a note of ours."""
        try:
            note = self._preserved(wid).lstat()
            names = os.listdir(path)
        except OSError:
            return False
        return stat.S_ISREG(note.st_mode) and not path.is_symlink() and set(names) <= {SESSION_FILE}

    def create(self, workspace_id: Any) -> tuple[Workspace, list[str]]:
        """A fresh, empty, registered workspace. An existing workspace (or preserved leftover)
        with that id is replaced (warned); any other folder there is refused, never deleted."""
        wid = validate_workspace_id(workspace_id)
        path = self.path_of(wid)
        warnings: list[str] = []
        if os.path.lexists(path):
            if _registered(path, wid) is not None:
                kind = "registered"
            elif self._leftover(path, wid):
                kind = "left over by test_cleanup(preserve_session)"
            else:
                raise _unsafe(
                    path,
                    f"{path} already exists but is not a test-tools workspace (no marker {MARKER} naming "
                    f"{wid!r}), so autocue does not delete it. Remove it yourself or use another workspace_id.",
                    code="workspace_exists",
                )
            _rmtree(path)
            self._preserved(wid).unlink(missing_ok=True)
            warnings.append(f"workspace {wid!r} already existed ({kind}); it was deleted and created again")
        tmp = path.with_name(f".{wid}.{secrets.token_hex(6)}.new")  # never matches an id: not listed, not cleaned
        tmp.mkdir(mode=0o700)
        try:
            (tmp / ".agent").mkdir()
            write_atomic(tmp, MARKER, orjson.dumps({"workspace_id": wid, "created_at": time.time(),
                                                    "pid": os.getpid()}))
            os.rename(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return Workspace(wid, path), warnings

    def remove(self, workspace_id: Any, *, preserve_session: bool = False) -> tuple[list[str], list[str]]:
        """Delete (and deregister) a workspace; returns the preserved files' absolute paths and warnings."""
        ws = self.get(workspace_id)
        preserved: list[str] = []
        warnings: list[str] = []
        keep: bytes | None = None
        if preserve_session:
            try:
                keep = ws.read_file(SESSION_FILE)
            except FileNotFoundError:
                pass
            except TestToolError as e:
                warnings.append(f"session.jsonl not preserved: {e.message}")
        if keep is not None:
            # the note first, while the workspace is still whole: if it cannot be written nothing is
            # deleted, and once it is, what is left (session.jsonl or nothing) is a leftover that
            # test_setup replaces and clean_stale removes
            try:
                write_atomic(self.root, f"{PRESERVED_DIR}/{ws.id}", b"{}")
            except UnsafeFileError as e:
                raise _unsafe(e.path, f"cannot preserve session.jsonl: {e}; nothing was deleted") from None
        _rmtree(ws.path)
        if keep is not None:
            ws.path.mkdir(mode=0o700)
            ws.session_file.write_bytes(keep)
            preserved.append(str(ws.session_file))
        return preserved, warnings

    def clean_stale(self, max_age_secs: float, on_skip: Callable[[Path, str], None] | None = None) -> list[str]:
        """Delete workspaces (and preserved leftovers) untouched for ``max_age_secs``; returns their ids.
        Id-named folders without the marker are never deleted (``on_skip`` hears of them)."""
        root = self._existing_root()
        if root is None:
            return []
        cutoff = time.time() - max_age_secs
        removed: list[str] = []
        for p in root.iterdir():
            if not _ID.match(p.name) or p.is_symlink() or not p.is_dir():
                continue
            marker = _registered(p, p.name)
            if marker is not None:
                mtime = marker.st_mtime
            elif self._leftover(p, p.name):
                mtime = self._preserved(p.name).lstat().st_mtime
            else:
                if on_skip is not None:
                    on_skip(p, f"no marker {MARKER} naming {p.name!r}: not created by the test tools")
                continue
            if mtime <= cutoff:
                try:
                    _rmtree(p)
                except (OSError, TestToolError) as e:
                    if on_skip is not None:
                        on_skip(p, f"cannot delete it: {e}")
                    continue
                self._preserved(p.name).unlink(missing_ok=True)
                removed.append(p.name)
        return sorted(removed)


__all__ = [
    "MARKER", "SESSION_FILE", "STATE_DIR", "Workspace", "WorkspaceStore", "default_root", "validate_workspace_id",
]
