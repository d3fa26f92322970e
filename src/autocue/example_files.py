"""The examples autocue ships: ``examples/`` of a source checkout, ``autocue/examples`` in a wheel.

The repository keeps one copy (``examples/``); the wheel build force-includes it as the
package data directory ``autocue/examples``. ``examples_root()`` finds it through
``importlib.resources`` (an installed wheel) and falls back to the checkout's ``examples/``
(an editable install or ``PYTHONPATH=src``). ``copy_examples(dest)`` writes the files out,
never overwriting one that exists: ``autocue demo`` plays the copies in a temp dir, and
``autocue init`` makes them a starting project.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path

from autocue.errors import AutocueError

_SKIP = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


class ExamplesNotFoundError(AutocueError, FileNotFoundError):
    """Neither the package data (``autocue/examples``) nor a checkout's ``examples/`` is there."""


class ExamplesConflictError(AutocueError, FileExistsError):
    """``copy_examples`` found files in the destination that it would overwrite; it wrote nothing."""

    def __init__(self, dest: Path, existing: list[Path]) -> None:
        self.dest = dest
        self.existing = existing
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        super().__init__(f"{existing[0]} already exists{more}")


def examples_root() -> Traversable:
    """Where the shipped examples are; raises ``ExamplesNotFoundError`` when this build has none."""
    packaged = importlib.resources.files("autocue").joinpath("examples")
    if packaged.is_dir():
        return packaged
    import autocue

    checkout = Path(autocue.__file__).resolve().parents[2]
    if (checkout / "examples").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout / "examples"
    raise ExamplesNotFoundError(
        f"the examples are not in this autocue build (looked for the package data {packaged} and for "
        f"{checkout / 'examples'}); reinstall autocue from its wheel or run from a source checkout"
    )


def _walk(node: Traversable, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Traversable]]:
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name in _SKIP or child.name.endswith((".pyc", ".pyo")):
            continue
        if child.is_dir():
            yield from _walk(child, (*prefix, child.name))
        elif child.is_file():
            yield (*prefix, child.name), child


def example_files() -> list[str]:
    """The shipped example files, as ``/``-separated paths relative to the examples root (sorted)."""
    return ["/".join(parts) for parts, _ in _walk(examples_root())]


def copy_examples(dest: str | Path, extra: Mapping[str, str] | None = None) -> list[Path]:
    """Copy the examples into ``dest`` (created if missing); returns the files written. ``extra``
    adds files of its own (``/``-separated path: text), written the same way.

    Nothing is overwritten and nothing is deleted: when any target file exists (or is a dangling
    link), ``ExamplesConflictError`` lists them all and no file is written. Files are created with
    exclusive-create, so one appearing during the copy is not overwritten either.
    """
    root = Path(dest)
    entries: list[tuple[tuple[str, ...], Traversable | str]] = list(_walk(examples_root()))
    entries += [(tuple(path.split("/")), text) for path, text in (extra or {}).items()]
    existing: list[Path] = []
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(f"{root} is a file, not a directory")
    for parts, _ in entries:
        for i in range(1, len(parts) + 1):  # the file itself, or a parent that is a file
            p = root.joinpath(*parts[:i])
            if (p.is_symlink() or p.exists()) and (i == len(parts) or not p.is_dir()) and p not in existing:
                existing.append(p)
    if existing:
        raise ExamplesConflictError(root, existing)
    written: list[Path] = []
    for parts, src in entries:
        target = root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("xb") as f:
            f.write(src.encode() if isinstance(src, str) else src.read_bytes())
        written.append(target)
    return written


__all__ = ["ExamplesConflictError", "ExamplesNotFoundError", "copy_examples", "example_files", "examples_root"]
