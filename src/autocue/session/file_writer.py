"""Writing a session file: ``SessionFileWriter`` (what of it is on disk, and the one ``O_APPEND``
descriptor that appends the rest), ``entry_lines(entries)``, the JSONL of entries, and how a file
is rewritten safely (``keep_backup``, ``replace_file``)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import weakref
from collections.abc import Sequence
from typing import Any

from autocue.session.entries import MessageEntry, SessionEntry, SessionHeader
from autocue.session.file_format import dumps_line, loads_line, no_gc


def entry_lines(entries: Sequence[SessionEntry]) -> bytes:
    """The JSONL lines of ``entries``. A loaded message entry's line is decoded and encoded
    again without keeping the dict (what ``to_json()`` would keep for good)."""
    parts: list[bytes] = []
    append = parts.append
    with no_gc():
        for e in entries:
            if type(e) is MessageEntry and e._raw is None and e._line is not None:
                append(dumps_line(loads_line(e._line)))
            else:
                append(dumps_line(e.to_json()))
    return b"".join(parts)


def keep_backup(path: str, data: bytes) -> str:
    """Write ``data`` to the first free name of ``<path>.bak``, ``<path>.bak.1``, ... and return it."""
    n = 0
    while True:
        backup = f"{path}.bak" if n == 0 else f"{path}.bak.{n}"
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            n += 1
            continue
        _write_synced(fd, data)
        return backup


def replace_file(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (no fixed temporary name: nothing else is overwritten)."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=os.path.dirname(path))
    try:
        _write_synced(fd, data)
        with contextlib.suppress(OSError):
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_synced(fd: int, data: bytes) -> None:
    """Write ``data``, flush it to the disk and close ``fd``."""
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _close_fd(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


class SessionFileWriter:
    """One session file (``path``; None: a session that is not written) and how much of it is written."""

    __slots__ = ("__weakref__", "_fd", "_finalizer", "needs_newline", "path", "truncate_at", "written")

    def __init__(self, path: str | None, written: int = -1, truncate_at: int | None = None,
                 needs_newline: bool = False) -> None:
        self.path = path
        self.written = written
        """Entries on disk: -1 = nothing (not even the header), 0 = header only, n = header + n entries."""
        self.truncate_at = truncate_at
        """Cut the file to this size before the next write (a torn last line, an empty or blank file)."""
        self.needs_newline = needs_newline
        """The file's last line lacks its newline: the next write starts with one."""
        self._fd: int | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def flush(self, header: SessionHeader, entries: list[SessionEntry]) -> None:
        """Write what is not on disk yet: the header the first time, then ``entries[written:]``."""
        start = max(self.written, 0)
        # one append (the hot path) is one line
        data = dumps_line(entries[start].to_json()) if start == len(entries) - 1 else entry_lines(entries[start:])
        self._write(data if self.written >= 0 else dumps_line(header.to_json()) + data)
        self.written = len(entries)

    def rewrite(self, header: SessionHeader, entries: list[SessionEntry]) -> None:
        """Replace the whole file (atomically) with ``header`` and ``entries``."""
        assert self.path is not None
        self.close()
        replace_file(self.path, dumps_line(header.to_json()) + entry_lines(entries))
        self.written = len(entries)
        self.truncate_at = None
        self.needs_newline = False

    def _write(self, data: bytes) -> None:
        fd = self._fd
        if fd is None:
            assert self.path is not None
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            self._fd = fd
            self._finalizer = weakref.finalize(self, _close_fd, fd)
            if self.truncate_at is not None:
                os.ftruncate(fd, self.truncate_at)
                self.truncate_at = None
            elif self.needs_newline:
                data = b"\n" + data
            self.needs_newline = False
        write_all(fd, data)

    def close(self) -> None:
        """Close the file descriptor kept for appends (reopened on the next write)."""
        fin = self._finalizer
        if fin is not None:
            fin()
        self._fd = None
        self._finalizer = None


__all__ = ["SessionFileWriter", "entry_lines", "keep_backup", "replace_file", "write_all"]
