"""An asciicast v2 recording written while the program runs (line-buffered: a crash keeps it).

Line 1 is the header (``version``, ``width``, ``height``, ``timestamp``, ``env``, ``title``);
each later line is ``[seconds since start, code, data]`` with ``o`` (output), ``i`` (input
typed by the executor), ``m`` (a marker per timeline event) and ``r`` (resize).
"""

from __future__ import annotations

import codecs
import json
import time
from pathlib import Path
from typing import IO


class CastWriter:
    def __init__(self, path: Path, width: int, height: int, *, title: str, term: str = "xterm-256color") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._f: IO[str] | None = path.open("w", encoding="utf-8", buffering=1)
        self._t0 = time.monotonic()
        self._dec = codecs.getincrementaldecoder("utf-8")("replace")
        header = {"version": 2, "width": width, "height": height, "timestamp": int(time.time()),
                  "env": {"TERM": term}, "title": title}
        self._f.write(json.dumps(header) + "\n")

    def _event(self, code: str, data: str) -> None:
        if self._f is not None and data:
            self._f.write(json.dumps([round(time.monotonic() - self._t0, 6), code, data]) + "\n")

    def output(self, chunk: bytes) -> None:
        self._event("o", self._dec.decode(chunk))

    def input(self, data: str) -> None:
        self._event("i", data)

    def marker(self, label: str) -> None:
        self._event("m", label)

    def close(self) -> None:
        if self._f is not None:
            self._event("o", self._dec.decode(b"", final=True))
            self._f.close()
            self._f = None


def read_cast(path: Path) -> tuple[dict[str, object], list[list[object]]]:
    """The header and events of a recording (for tests and reports)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    return header, [json.loads(line) for line in lines[1:] if line.strip()]
