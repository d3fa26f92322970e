"""``autocue.loop.safe_files``: the no-follow file access the test tools and the loop use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from planting import no_hang

from autocue.loop.safe_files import UnsafeFileError, create_fresh, lstat_in, read_regular, write_atomic


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "d").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "f").write_text("outside")
    return tmp_path / "ws"


def test_a_linked_parent_is_refused_everywhere(ws: Path) -> None:
    (ws / "l").symlink_to(ws.parent / "out", target_is_directory=True)
    for call in (lambda: read_regular(ws, "l/f"), lambda: write_atomic(ws, "l/g", b"x"),
                 lambda: create_fresh(ws, "l/g"), lambda: lstat_in(ws, "l/f")):
        with pytest.raises(UnsafeFileError, match=r"/ws/l is a symbolic link"):
            call()
    assert sorted(p.name for p in (ws.parent / "out").iterdir()) == ["f"]


def test_read_regular_refuses_links_hard_links_and_fifos_without_blocking(ws: Path) -> None:
    (ws / "sym").symlink_to(ws.parent / "out" / "f")
    os.link(ws.parent / "out" / "f", ws / "hard")
    os.mkfifo(ws / "fifo")
    for name, what in (("sym", "a symbolic link"), ("hard", "a hard link (2 links"), ("fifo", "a FIFO")):
        with pytest.raises(UnsafeFileError) as ei:
            no_hang(lambda name=name: read_regular(ws, name), [ws / "fifo"], timeout=5)
        assert ei.value.what.startswith(what)
    (ws / "d" / "ok").write_bytes(b"fine")
    assert read_regular(ws, "d/ok") == b"fine"


def test_write_atomic_replaces_a_link_instead_of_writing_through(ws: Path) -> None:
    (ws / "sym").symlink_to(ws.parent / "out" / "f")
    os.link(ws.parent / "out" / "f", ws / "hard")
    write_atomic(ws, "sym", b"new")
    write_atomic(ws, "hard", b"new")
    assert (ws.parent / "out" / "f").read_text() == "outside"
    assert not (ws / "sym").is_symlink() and (ws / "sym").read_bytes() == (ws / "hard").read_bytes() == b"new"
    assert [p.name for p in ws.iterdir() if p.name.endswith(".tmp")] == []


def test_create_fresh_unlinks_a_hard_link_and_refuses_a_symlink_or_fifo(ws: Path) -> None:
    os.link(ws.parent / "out" / "f", ws / "hard")
    with create_fresh(ws, "hard") as fh:
        fh.write(b"session")
    assert (ws.parent / "out" / "f").read_text() == "outside" and (ws / "hard").read_text() == "session"
    (ws / "sym").symlink_to(ws.parent / "out" / "f")
    os.mkfifo(ws / "fifo")
    for name in ("sym", "fifo"):
        with pytest.raises(UnsafeFileError):
            no_hang(lambda name=name: create_fresh(ws, name), [ws / "fifo"], timeout=5)
    assert (ws / "sym").is_symlink() and (ws.parent / "out" / "f").read_text() == "outside"


def test_paths_that_climb_are_programming_errors(ws: Path) -> None:
    with pytest.raises(ValueError):
        read_regular(ws, "../out/f")
