"""The session file's line format: JSON lines written as JavaScript's ``JSON.stringify`` writes
them (``dumps_line``, ``loads_line``; records make their dicts through ``casing.CamelJson``), the
timestamps pi puts in entries (``iso_now``, ``iso_to_ms``), and ``no_gc()`` for decoding or
encoding many lines."""

from __future__ import annotations

import contextlib
import gc
import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson

_last_now = (-1, "", -1, "")
"""The last ``iso_now()``: its second, that second's text, its millisecond and its text."""


def iso_now() -> str:
    """Now as pi writes entry timestamps: ``2026-11-22T02:49:17.428Z`` (formatted once per
    millisecond: strftime would dominate an append otherwise)."""
    global _last_now
    ms = int(time.time() * 1000)
    sec, prefix, last_ms, text = _last_now
    if ms == last_ms:
        return text
    if ms // 1000 != sec:
        sec = ms // 1000
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(sec))
    text = f"{prefix}{ms - sec * 1000:03d}Z"
    _last_now = (sec, prefix, ms, text)
    return text


def iso_to_ms(s: str) -> int:
    """Epoch milliseconds of an ISO timestamp (JavaScript ``new Date(s).getTime()``); 0 if unparsable."""
    try:
        return round(datetime.fromisoformat(s).timestamp() * 1000)
    except (ValueError, TypeError):
        return 0


def dumps_line(d: Any) -> bytes:
    """One JSONL line (with the newline) in ``JSON.stringify`` form: compact, UTF-8, keys in order.

    Values orjson refuses (a lone surrogate from undecodable tool output, an int beyond 64
    bits, non-string keys) go through the standard library instead; lone surrogates are
    written as ``\\udXXX`` escapes, as JavaScript's well-formed ``JSON.stringify`` does.
    """
    try:
        return orjson.dumps(d) + b"\n"
    except orjson.JSONEncodeError:
        try:
            text = json.dumps(d, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
        except RecursionError:
            raise ValueError("JSON nested too deeply to write") from None
        return text.encode("utf-8", "backslashreplace") + b"\n"


def loads_line(raw: bytes) -> Any:
    """Decode one JSONL line (``orjson``; the standard library for what orjson refuses).

    orjson refuses ``\\udXXX`` escapes of lone surrogates, which ``JSON.stringify`` (and
    ``dumps_line``) write for undecodable text; the standard library reads them.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return json.loads(raw)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC (decoding a file creates many small containers it would rescan over and over)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["dumps_line", "iso_now", "iso_to_ms", "loads_line", "no_gc"]
