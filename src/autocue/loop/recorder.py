"""``SessionRecorder``: writes the loop's ``session.jsonl``.

Public surface: ``SessionRecorder(path, *, start_ms=None)`` with ``record(event, data)``,
``loop_start``, ``iteration``, ``publish``, ``terminal_write``, ``event_dropped``,
``termination``, ``close``; ``count`` (records written) and ``counts`` (per type).

Each line is ``{"ts": <epoch ms>, "event": "<type>", "data": {...}}`` (compact JSON, flushed
on every write so a crashed or killed run keeps everything written so far):

| event | data |
|---|---|
| ``_meta.loop_start`` | ``prompt_file``, ``max_iterations``, ``ux_mode`` (``cli``), ``max_runtime_seconds``, |
| | ``completion_promise``, ``hats`` |
| ``bus.publish`` | ``topic``, ``payload``, ``source``, ``target`` |
| ``ux.terminal.write`` | ``bytes`` (base64), ``stdout``, ``offset_ms`` (flat, never double-wrapped) |
| ``_meta.iteration`` | ``n``, ``hat``, ``elapsed_ms`` (since loop start), ``duration_ms``, ``trigger``, ``exit_code`` |
| ``_meta.event_dropped`` | ``topic``, ``reason``, ``snippet`` |
| ``_meta.termination`` | ``reason`` (CamelCase), ``iterations``, ``elapsed_secs``, ``ux_writes`` |

``_meta.iteration`` is written when an iteration ends, after its output and its events, so
records between iteration markers n-1 and n belong to iteration n. A write failure is kept
in ``write_error`` (and reported by the loop), never swallowed.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import IO, Any

import orjson

from autocue.loop.events import Event
from autocue.loop.safe_files import create_fresh


def _relative_to(path: Path, root: Path) -> str | None:
    try:
        rel = path.absolute().relative_to(root.absolute())
    except ValueError:
        return None
    return rel.as_posix() if rel.parts and ".." not in rel.parts else None


class SessionRecorder:
    """See module docstring. ``path=None`` keeps records in memory only (``records``).

    ``inside``: a workspace autocue does not trust (an agent runs there); a ``path`` below it
    is created afresh without following links (``safe_files.create_fresh``: a symlink or FIFO
    planted there raises ``UnsafeFileError``, a hard link is replaced, never truncated)."""

    def __init__(self, path: str | Path | None, *, keep: bool = False, inside: Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._fh: IO[bytes] | None = None
        if self.path is not None:
            rel = _relative_to(self.path, inside) if inside is not None else None
            if rel is not None and inside is not None:
                self._fh = create_fresh(inside, rel)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self.keep = keep or self.path is None
        self.records: list[dict[str, Any]] = []
        self.start_ms = int(time.time() * 1000)
        self._start_mono = time.monotonic()
        self.count = 0
        self.counts: dict[str, int] = {}
        self.write_error: str | None = None

    def offset_ms(self) -> int:
        return int((time.monotonic() - self._start_mono) * 1000)

    def record(self, event: str, data: dict[str, Any]) -> None:
        rec = {"ts": self.start_ms + self.offset_ms(), "event": event, "data": data}
        self.count += 1
        self.counts[event] = self.counts.get(event, 0) + 1
        if self.keep:
            self.records.append(rec)
        fh = self._fh
        if fh is not None and self.write_error is None:
            try:
                fh.write(orjson.dumps(rec) + b"\n")
                fh.flush()
            except (OSError, TypeError) as e:
                self.write_error = f"cannot write {self.path}: {e}"

    def loop_start(self, **data: Any) -> None:
        self.record("_meta.loop_start", {"ux_mode": "cli", **data})

    def publish(self, ev: Event) -> None:
        self.record("bus.publish", ev.to_record())

    def terminal_write(self, data: bytes, stdout: bool) -> None:
        self.record(
            "ux.terminal.write",
            {"bytes": base64.b64encode(data).decode("ascii"), "stdout": stdout, "offset_ms": self.offset_ms()},
        )

    def iteration(self, n: int, hat: str, *, duration_ms: int, trigger: str | None, exit_code: int) -> None:
        self.record(
            "_meta.iteration",
            {"n": n, "hat": hat, "elapsed_ms": self.offset_ms(), "duration_ms": duration_ms, "trigger": trigger,
             "exit_code": exit_code},
        )

    def event_dropped(self, topic: str | None, reason: str, snippet: str = "") -> None:
        self.record("_meta.event_dropped", {"topic": topic, "reason": reason, "snippet": snippet})

    def termination(self, reason: str, iterations: int, elapsed_secs: float) -> None:
        self.record(
            "_meta.termination",
            {"reason": reason, "iterations": iterations, "elapsed_secs": round(elapsed_secs, 3),
             "ux_writes": self.counts.get("ux.terminal.write", 0)},
        )

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError as e:
                self.write_error = self.write_error or f"cannot close {self.path}: {e}"
            self._fh = None

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["SessionRecorder"]
