"""Planting what an untrusted agent can leave in a workspace (symlinks, hard links, FIFOs) and
watching a directory outside it, for the test-tools security tests.

``plant(ws, rel, kind, outside_file, outside_dir)`` replaces whatever is at ``ws/rel`` by one of
``KINDS``; ``tree_state(dir)`` is every entry below ``dir`` with its kind and content, to compare
before and after; ``no_hang(fn, fifos, timeout)`` runs ``fn`` in a thread and, if it is still
running after ``timeout`` seconds (blocked opening a FIFO), opens each FIFO for writing to
release it (either way) and fails the test, so a hang is a failure, not a stuck suite.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

KINDS = ("symlink_file", "symlink_dir", "hardlink", "fifo")
T = TypeVar("T")


def plant(ws: Path, rel: str, kind: str, outside_file: Path, outside_dir: Path) -> Path:
    target = ws / rel
    if target.is_symlink() or target.is_file() or (target.exists() and not target.is_dir()):
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink_file":
        target.symlink_to(outside_file)
    elif kind == "symlink_dir":
        target.symlink_to(outside_dir, target_is_directory=True)
    elif kind == "hardlink":
        os.link(outside_file, target)
    elif kind == "fifo":
        os.mkfifo(target)
    else:  # pragma: no cover - a typo in a test
        raise ValueError(kind)
    return target


def tree_state(root: Path) -> dict[str, Any]:
    """``{relative path: (kind, content or link target)}`` of everything below ``root``."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath, name)
            st = p.lstat()
            rel = p.relative_to(root).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", None)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", p.read_bytes())
            else:
                out[rel] = ("special", stat.S_IFMT(st.st_mode))
    return out


def no_hang(fn: Callable[[], T], fifos: list[Path], timeout: float = 10.0) -> T:
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as e:  # re-raised in the caller's thread
            error.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        for f in fifos:  # a blocked reader (writer) is released by a writer (reader) opening it
            try:
                r = os.open(f, os.O_RDONLY | os.O_NONBLOCK)
                os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))
                os.close(r)
            except OSError:
                pass
        t.join(timeout)
        pytest.fail(f"the call hung for {timeout}s (blocked on a FIFO among {[str(f) for f in fifos]})")
    if error:
        raise error[0]
    return result[0]
