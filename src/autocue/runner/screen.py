"""The screen emulator behind a small interface: ``feed``, ``text``, ``cursor``.

It uses pyavt (asciinema's ``avt``), not pyte: the measurements in the project's terminal
reference show pyavt correct on every probe (alternate screen enter/leave restoring the main
screen — Codex and opencode use it —, scroll regions, REP, kitty keyboard pops, DCS/APC
payloads, ZWJ emoji) where pyte needs patches and has no alternate screen, and about 100x
faster, which matters when a run samples the screen after every read.

avt has no reply path, so the queries programs send at start-up are answered here: DA1
(``CSI c``), DSR (``CSI 5n``) and the cursor position report (``CSI 6n``). Synchronized
output (``CSI ?2026h`` ... ``l``) is tracked so the executor never samples a torn frame.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from avt import _avt

_QUERY = re.compile(rb"\x1b\[(?:0?c|5n|6n|\?2026[hl])")
_COMPLETE = re.compile(rb"\x1b(?:\[[0-9;?<=>$]*[ -/]*[@-~]|[^\[])")
_KEEP = 8  # bytes of an unfinished escape sequence carried to the next chunk


def normalise(lines: list[str]) -> str:
    """A screen as text: trailing spaces trimmed per row, trailing blank rows dropped."""
    rows = [line.rstrip() for line in lines]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows)


class Screen:
    """A ``width`` x ``height`` terminal; ``feed`` returns the bytes to answer the program with."""

    def __init__(self, width: int, height: int, settle_view: Callable[[str], str] | None = None) -> None:
        self.width = width
        self.height = height
        self._vt = _avt.Vt(width, height)
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        self._tail = b""
        self.in_sync_update = False
        self.version = 0
        """Increases on every fed chunk that changed the visible text (as ``settle_view`` shows it:
        the masked text, so a ticking clock that a mask hides does not keep the screen busy)."""
        self._settle_view = settle_view
        self._last = ""

    def feed(self, chunk: bytes) -> bytes:
        replies: list[bytes] = []
        scan = self._tail + chunk
        offset = len(self._tail)  # where ``chunk`` starts in ``scan``
        fed = 0  # bytes of ``chunk`` already given to the emulator
        for m in _QUERY.finditer(scan):
            q = m.group()
            if q.endswith(b"6n"):  # the cursor position after the text before the query
                upto = max(m.end() - offset, fed)
                self._vt.feed_str(self._dec.decode(chunk[fed:upto]))
                fed = upto
                row, col = self.cursor
                replies.append(f"\x1b[{row + 1};{col + 1}R".encode())
            elif q.endswith(b"5n"):
                replies.append(b"\x1b[0n")
            elif q.endswith(b"c"):
                replies.append(b"\x1b[?6c")
            else:
                self.in_sync_update = q.endswith(b"h")
        esc = scan.rfind(b"\x1b", max(0, len(scan) - _KEEP))
        self._tail = scan[esc:] if esc >= 0 and not _COMPLETE.match(scan, esc) else b""
        if fed < len(chunk):
            self._vt.feed_str(self._dec.decode(chunk[fed:]))
        text = self.text() if self._settle_view is None else self._settle_view(self.text())
        if text != self._last:
            self._last = text
            self.version += 1
        return b"".join(replies)

    def text(self) -> str:
        return normalise([line.text for line in self._vt.view()])

    @property
    def cursor(self) -> tuple[int, int]:
        c = self._vt.cursor
        return c.row, c.col

    @property
    def app_cursor_keys(self) -> bool:
        return bool(self._vt.cursor_key_app_mode)
