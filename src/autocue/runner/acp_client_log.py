"""``acp.jsonl``: every JSON-RPC message of an ACP run, both ways, one JSON object a line.

Each line: ``{"i": index, "t": seconds since the agent started, "dir": "out" | "in", "msg": {...}}``
(``out``: the runner (the client) to the agent; ``in``: the agent to the runner). A line the agent
wrote that is not a JSON-RPC message is kept as ``{"i", "t", "dir": "in", "raw": text, "error": why}``.
The ACP checks (``autocue.runner.acp_client_checks``) and ``autocue view`` read it back; failures name
a message by its index and method (``acp.jsonl #12 in session/update``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, TextIO

LOG_NAME = "acp.jsonl"


def malformed(msg: object) -> str | None:
    """Why ``msg`` (a decoded line) is not a JSON-RPC 2.0 message (None: it is one)."""
    if not isinstance(msg, dict):
        return f"a JSON {type(msg).__name__}, not a JSON-RPC object"
    if msg.get("jsonrpc") != "2.0":
        return 'no "jsonrpc": "2.0"'
    if "method" not in msg and "id" not in msg:
        return 'neither "method" nor "id"'
    if "method" in msg and not isinstance(msg["method"], str):
        return '"method" is not a string'
    return None


class AcpLog:
    """The run's messages, in order, written to ``path`` as they come (flushed per line)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[dict[str, Any]] = []
        self.t0 = time.monotonic()
        self.last_in = self.t0
        """When the agent last wrote a line (the quiet-window sync of the timeline)."""
        self._fh: TextIO | None = path.open("w", encoding="utf-8") if path is not None else None
        self._methods: dict[tuple[str, Any], str] = {}
        """The method of each request by (its sender's direction, id): names a response."""

    def add(self, direction: str, msg: dict[str, Any] | None = None, *, raw: str = "", error: str = "") -> int:
        now = time.monotonic()
        entry: dict[str, Any] = {"i": len(self.entries), "t": round(now - self.t0, 4), "dir": direction}
        if msg is not None:
            entry["msg"] = msg
            if "method" in msg and "id" in msg:
                self._methods[(direction, msg["id"])] = str(msg["method"])
        else:
            entry.update(raw=raw[:2000], error=error)
        if direction == "in":
            self.last_in = now
        self.entries.append(entry)
        if self._fh is not None:
            self._fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self._fh.flush()
        return len(self.entries) - 1

    def method(self, entry: dict[str, Any]) -> str:
        """``session/update``, or ``response to session/prompt`` for a response, or ``malformed line``."""
        msg = entry.get("msg")
        if not isinstance(msg, dict):
            return "malformed line"
        if "method" in msg:
            return str(msg["method"])
        other = "out" if entry["dir"] == "in" else "in"
        what = self._methods.get((other, msg.get("id")), "?")
        return f"{'error' if 'error' in msg else 'response'} to {what}"

    def name(self, index: int | None = None) -> str:
        """``acp.jsonl #12 (in session/update)`` for message ``index`` (default: the last one)."""
        if not self.entries:
            return f"{LOG_NAME}: no message yet"
        entry = self.entries[-1 if index is None else index]
        return f"{LOG_NAME} #{entry['i']} ({entry['dir']} {self.method(entry)})"

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_log(path: Path) -> list[dict[str, Any]]:
    """The entries of an ``acp.jsonl`` (lines that are not JSON objects are skipped)."""
    out: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out


__all__ = ["LOG_NAME", "AcpLog", "malformed", "read_log"]
