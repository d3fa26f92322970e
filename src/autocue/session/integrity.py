"""What opening a session file checks beyond each line (``check_tree``: unique ids, no ``parentId``
cycle), and how a file is written safely (``keep_backup``, ``replace_file``)."""

from __future__ import annotations

import contextlib
import operator
import os
import tempfile
from collections.abc import Container, Sequence

from autocue.session.entries import SessionEntry
from autocue.session.errors import SessionFileError

_get_id = operator.attrgetter("id")
_get_parent_id = operator.attrgetter("parent_id")


def check_tree(path: str, entries: Sequence[SessionEntry], line_nos: Sequence[int]) -> None:
    """Raise ``SessionFileError`` for a duplicate entry id or a ``parentId`` cycle.

    ``line_nos[i]`` is the file line of ``entries[i]``. O(entries): a never-branched file
    (each entry the child of the one before it) needs no walk at all.
    """
    line_of: dict[str, int] = {}
    for e, line in zip(entries, line_nos, strict=True):
        first = line_of.setdefault(e.id, line)
        if first != line:
            raise SessionFileError(
                path, line, f"entry id {e.id} appears twice (first on line {first})",
                "Entry ids must be unique in a session file; repair or remove one of the two lines.",
            )
    if is_chain(entries, line_of):
        return
    by_id = {e.id: e for e in entries}
    done: set[str] = set()
    for e in entries:
        walk: dict[str, None] = {}  # this walk's ids, in order
        cur: SessionEntry | None = e
        while cur is not None and cur.id not in done:
            if cur.id in walk:
                loop = [*walk][[*walk].index(cur.id):]
                raise SessionFileError(
                    path, line_of[cur.id],
                    f"parentId cycle: entry {cur.id} is its own ancestor ({' → '.join([*loop, cur.id])})",
                    "Every parentId chain must end at a root (parentId null); repair the parentId of one of them.",
                )
            walk[cur.id] = None
            pid = cur.parent_id
            cur = by_id.get(pid) if pid is not None else None
        done.update(walk)


def is_chain(entries: Sequence[SessionEntry], ids: Container[str]) -> bool:
    """Each entry is the child of the one before it, and the first one's parent is not among ``ids``
    (the ids of ``entries``)."""
    if not entries:
        return True
    parents = list(map(_get_parent_id, entries))
    return (parents[0] is None or parents[0] not in ids) and parents[1:] == list(map(_get_id, entries[:-1]))


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


__all__ = ["check_tree", "is_chain", "keep_backup", "replace_file", "write_all"]
