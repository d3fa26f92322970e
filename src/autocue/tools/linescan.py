"""Select lines of a file by streaming it, with memory bounded by the output limit.

``scan_lines(f, start, stop, keep_bytes)`` reads a binary file in chunks and returns the raw
bytes of lines ``[start, stop)`` (0-based; ``stop=None``: to the end), joined by their
newlines but without the last one's, keeping at most ``keep_bytes`` of them, plus what a
notice needs: the file's total line count (``text.split("\\n")`` semantics: a trailing
newline ends with an empty last line), the selection's full size in lines and bytes, and the
size of its first line. Newlines are counted in C (``bytes.count``), so a 1 GB file is one
pass with a few MB of memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

CHUNK_SIZE = 1 << 20


@dataclass(slots=True)
class LineScan:
    kept: bytes
    cut: bool  # the selection is longer than ``kept``
    total_lines: int
    selected_lines: int
    selected_bytes: int
    first_line_bytes: int


def _nth_newline(chunk: bytes, k: int) -> int:
    """Index of the ``k``-th (1-based) newline of ``chunk``; the caller knows it exists."""
    pos = -1
    for _ in range(k):
        pos = chunk.index(b"\n", pos + 1)
    return pos


def scan_lines(
    f: BinaryIO, start: int, stop: int | None, keep_bytes: int, check: Callable[[], None] | None = None
) -> LineScan:
    """See the module docstring. ``check`` runs between chunks (it may raise to stop)."""
    kept = bytearray()
    cut = False
    newlines = 0  # newlines before the current chunk
    base = 0  # file offset of the current chunk
    start_off: int | None = 0 if start == 0 else None
    end_off: int | None = None
    first_nl: int | None = None  # offset of the newline that ends line ``start``
    while chunk := f.read(CHUNK_SIZE):
        if check is not None:
            check()
        n = len(chunk)
        count = chunk.count(b"\n")
        if start_off is None and newlines + count >= start:
            start_off = base + _nth_newline(chunk, start - newlines) + 1
        if start_off is not None and end_off is None and start_off < base + n:
            lo = max(start_off - base, 0)
            hi = n
            if stop is not None and newlines + count >= stop:
                hi = _nth_newline(chunk, stop - newlines)
                end_off = base + hi
            if first_nl is None:
                i = chunk.find(b"\n", lo)
                if i != -1:
                    first_nl = base + i
            room = keep_bytes - len(kept)
            if room > 0:
                kept += chunk[lo : min(hi, lo + room)]
            if hi - lo > max(room, 0):
                cut = True
        newlines += count
        base += n
    total_lines = newlines + 1
    if start_off is None or start >= total_lines:
        return LineScan(b"", False, total_lines, 0, 0, 0)
    end = end_off if end_off is not None else base
    last = min(stop, total_lines) if stop is not None else total_lines
    first_end = first_nl if first_nl is not None and first_nl <= end else end
    return LineScan(bytes(kept), cut, total_lines, last - start, end - start_off, first_end - start_off)


__all__ = ["CHUNK_SIZE", "LineScan", "scan_lines"]
