"""Files autocue reads and writes inside a workspace it does not trust.

Public surface: ``UnsafeFileError``, ``open_dir(root, rel_dir, create=False)``,
``lstat_in(root, rel)``, ``read_regular(root, rel)``, ``open_regular_at(dir_fd, name, shown)``,
``write_atomic(root, rel, data)``, ``create_fresh(root, rel)``, ``describe(st)``.

An agent under test runs in the workspace and can plant symlinks, hard links and FIFOs
where autocue keeps its own files (``session.jsonl``, ``.autocue/events.jsonl``, the test
tools' state). So below ``root`` (the workspace, which is trusted itself) nothing is
followed: every directory component is opened with ``O_NOFOLLOW`` relative to its parent's
descriptor, the final component is checked with ``lstat`` and opened with ``O_NOFOLLOW``
(and ``O_NONBLOCK``, so a FIFO swapped in between cannot block), and the open file is
checked again with ``fstat``. What is refused raises ``UnsafeFileError`` naming the path and
what it is; nothing outside ``root`` is ever read, written or truncated:

- ``read_regular`` reads only a regular file with one link (a hard link may be a file
  outside the workspace);
- ``write_atomic`` writes a new file beside the target and renames it over the name, so a
  link at the name is replaced, never written through;
- ``create_fresh`` unlinks a regular file at the name (other hard links keep their data)
  and creates the file with ``O_EXCL``; a symlink or special file there is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from autocue.loop.errors import UnsafeFileError as UnsafeFileError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY


def describe(st: os.stat_result) -> str:
    """What a non-regular (or multiply linked) file is, for error messages."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode) and st.st_nlink > 1:
        return f"a hard link ({st.st_nlink} links; it may be a file outside the workspace)"
    return "not a regular file"


def _parts(rel: str) -> list[str]:
    parts = [p for p in PurePosixPath(rel.replace(os.sep, "/")).parts if p not in ("", ".")]
    if rel.startswith("/") or ".." in parts:
        raise ValueError(f"{rel!r} must be a relative path without '..'")
    return parts


def _refuse(dir_fd: int, name: str, shown: Path) -> UnsafeFileError:
    try:
        return UnsafeFileError(shown, describe(os.stat(name, dir_fd=dir_fd, follow_symlinks=False)))
    except OSError:
        return UnsafeFileError(shown, "not a directory")


@contextmanager
def open_dir(root: Path, rel_dir: str = "", *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``root/rel_dir`` reached without following a link below ``root``;
    ``create`` makes missing directories (0700)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        shown = root
        for name in _parts(rel_dir):
            shown = shown / name
            try:
                try:
                    nfd = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o700, dir_fd=fd)
                    nfd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse(fd, name, shown) from None
                raise
            os.close(fd)
            fd = nfd
        yield fd
    finally:
        os.close(fd)


def _split(rel: str) -> tuple[str, str]:
    parts = _parts(rel)
    if not parts:
        raise ValueError("empty path")
    return "/".join(parts[:-1]), parts[-1]


def lstat_in(root: Path, rel: str) -> os.stat_result | None:
    """``lstat`` of ``root/rel`` without following links below ``root``; ``None`` when missing."""
    parent, name = _split(rel)
    try:
        with open_dir(root, parent) as dfd:
            return os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_regular_at(dir_fd: int, name: str, shown: Path) -> IO[bytes]:
    """``name`` in the directory ``dir_fd``, open for reading, when it is a regular file with one
    link; else ``UnsafeFileError`` (``shown`` is the path it names). ``lstat`` first, so a FIFO or
    device is never opened; ``O_NOFOLLOW | O_NONBLOCK`` and ``fstat`` catch a swap in between."""
    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        raise UnsafeFileError(shown, describe(st))
    try:
        fh = os.fdopen(os.open(name, os.O_RDONLY | os.O_NONBLOCK | _FILE_FLAGS, dir_fd=dir_fd), "rb")
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UnsafeFileError(shown, "a symbolic link") from None
        raise
    st = os.fstat(fh.fileno())
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        fh.close()
        raise UnsafeFileError(shown, describe(st))
    return fh


def read_regular(root: Path, rel: str) -> bytes:
    """The bytes of ``root/rel``, a regular file with one link; ``FileNotFoundError`` when missing."""
    parent, name = _split(rel)
    with open_dir(root, parent) as dfd, open_regular_at(dfd, name, root / rel) as fh:
        return fh.read()


def write_atomic(root: Path, rel: str, data: bytes, mode: int = 0o600) -> None:
    """Write ``root/rel`` (parents created) as a new file renamed over the name."""
    parent, name = _split(rel)
    with open_dir(root, parent, create=True) as dfd:
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, mode, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise


def create_fresh(root: Path, rel: str) -> IO[bytes]:
    """A new empty ``root/rel`` open for writing (parents created), see module docstring."""
    parent, name = _split(rel)
    shown = root / rel
    with open_dir(root, parent, create=True) as dfd:
        try:
            st: os.stat_result | None = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISREG(st.st_mode):
                raise UnsafeFileError(shown, describe(st))
            os.unlink(name, dir_fd=dfd)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, 0o644, dir_fd=dfd)
        except FileExistsError:
            raise _refuse(dfd, name, shown) from None
    return os.fdopen(fd, "wb")


__all__ = [
    "UnsafeFileError", "create_fresh", "describe", "lstat_in", "open_dir", "open_regular_at", "read_regular",
    "write_atomic",
]
