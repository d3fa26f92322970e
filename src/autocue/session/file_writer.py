"""Writing a session file: ``SessionFileWriter`` (what of it is on disk, and the one ``O_APPEND``
descriptor that appends the rest) and ``entry_lines(entries)``, the JSONL of entries."""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Sequence
from typing import Any

from autocue.session.entries import MessageEntry, SessionEntry, SessionHeader
from autocue.session.file_format import dumps_line, loads_line, no_gc
from autocue.session.integrity import replace_file, write_all


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
        start = self.written
        if start < 0:
            parts = [dumps_line(header.to_json())]
            start = 0
        else:
            parts = []
        if start == len(entries) - 1:  # one append: the hot path
            parts.append(dumps_line(entries[start].to_json()))
        else:
            parts.append(entry_lines(entries[start:]))
        self._write(parts[0] if len(parts) == 1 else b"".join(parts))
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


__all__ = ["SessionFileWriter", "entry_lines"]
