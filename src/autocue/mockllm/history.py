"""A per-session cache of the last request body, so a long conversation is not parsed whole
on every request.

An agent's history is append-only: the next request repeats the previous body's bytes up to
the end of its last history item (``messages``, ``input`` or ``contents``: the caller names
it), adds new items, and ends with the same bytes after the history array. When a body has
that shape, ``HistoryCache.parse`` parses only the new items (``orjson.loads`` of the tail
wrapped in ``[[...]]``, so nesting depth is what ``orjson`` sees in the whole body) and builds
the body from the previous one (a shallow copy with a new, longer list: what an earlier
caller holds is never changed). Anything else (a changed or removed item, a moved
``cache_control``, another suffix, a different history key, an empty history) is one full
``orjson.loads``; both paths give the same value and raise the same errors.

Where the history array ends is found exactly, never guessed: the bytes after it are walked
back from the end of the body (strings, brackets and top-level pairs), the keys found must be
the body's last keys in order, and the array's span must parse as one value right after the
key. The walk (about one ``orjson.loads`` of the history) runs once per session (the first
time a session's body is reused); after a tail parse the positions are known. A session
whose bodies keep changing (a moving ``cache_control``) retries the walk with a backoff (after 1, 2, 4, 8 ... misses).

Bounded: at most ``max_sessions`` sessions and ``max_bytes`` bytes of held bodies, least
recently used out first. Not thread-safe: the server calls it from its one event loop, and
no method awaits, so calls never interleave. A body it returns (and the previous one it
shares items with) must be treated as read-only.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

import orjson

WS = b" \t\n\r"
"""JSON's whitespace (``bytes.strip()`` would strip more)."""
_TOKEN = re.compile(rb'"[^"]*(?:"(?=\\)[^"]*)*"|[\[\]{},:]')
"""A token of a JSON text read backwards (reversed bytes): a string (an inner quote has a
backslash before it in the original, after it here) or a structural character. Scalars and
whitespace are skipped."""
_CLOSE = frozenset(b"]}")
_OPEN = frozenset(b"[{")


class _Entry:
    __slots__ = ("array_end", "body", "history_key", "items_end", "misses", "pending", "raw", "seen")

    def __init__(self, raw: bytes, body: dict[str, Any], history_key: str, seen: int) -> None:
        self.raw = raw
        self.body = body
        self.history_key = history_key
        self.seen = seen
        self.items_end = -1
        """Offset just after the last history item (-1: not known yet)."""
        self.array_end = -1
        """Offset of the history array's ``]``."""
        self.misses = 0
        """Consecutive requests that could not reuse this session's previous body."""
        self.pending: tuple[bytes, dict[str, Any], int, int] | None = None
        """The last tail parse's body and its offsets, used if ``remember`` gets that body."""


MIN_BYTES = 8192
"""Bodies shorter than this are not kept: parsing and checking a short body whole costs less than
the cache's bookkeeping (measured with ``benchmarks/bench_mockllm.py``'s warm measure: two-request
conversations of ~500 bytes)."""


class HistoryCache:
    """The last validated body of each session, reused when the next body only appends history."""

    def __init__(self, max_sessions: int = 1000, max_bytes: int = 64 * 1024 * 1024,
                 min_bytes: int | None = None) -> None:
        self.max_sessions = max(0, max_sessions)
        self.max_bytes = max(0, max_bytes)
        self.min_bytes = MIN_BYTES if min_bytes is None else max(0, min_bytes)
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def held_bytes(self) -> int:
        """Bytes of bodies held."""
        return self._bytes

    def parse(self, key: str, raw: bytes, history_key: str) -> tuple[Any, int]:
        """``raw`` parsed, and how many leading history items were seen in this session's
        previous body (0: parsed whole). Raises ``orjson.JSONDecodeError`` exactly when
        ``orjson.loads(raw)`` would; a body that is not an object comes back as parsed."""
        entry = self._entries.get(key)
        if entry is None or entry.history_key != history_key or entry.seen == 0:
            return orjson.loads(raw), 0
        self._entries.move_to_end(key)
        if entry.items_end < 0:
            if entry.misses & (entry.misses - 1):  # backoff: walk again after 1, 2, 4, 8 ... misses
                entry.misses += 1
                return orjson.loads(raw), 0
            if not _locate(entry):
                entry.misses += 1
                return orjson.loads(raw), 0
        got = _extend(entry, raw)
        if got is None:
            entry.misses += 1
            entry.pending = None
            return orjson.loads(raw), 0
        entry.misses = 0
        entry.pending = (raw, got[0], got[1], got[2])
        return got[0], entry.seen

    def remember(self, key: str, raw: bytes, body: dict[str, Any], history_key: str) -> None:
        """Keep ``raw`` and its validated ``body`` as session ``key``'s previous body."""
        history = body.get(history_key)
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old.raw)
        if not isinstance(history, list) or not history or not self.min_bytes <= len(raw) <= self.max_bytes \
                or not self.max_sessions:
            return
        entry = _Entry(raw, body, history_key, len(history))
        if old is not None:
            entry.misses = old.misses
            if old.pending is not None and old.pending[0] is raw and old.pending[1] is body:
                entry.items_end, entry.array_end = old.pending[2], old.pending[3]
        self._entries[key] = entry
        self._bytes += len(raw)
        while self._entries and (len(self._entries) > self.max_sessions or self._bytes > self.max_bytes):
            _, gone = self._entries.popitem(last=False)
            self._bytes -= len(gone.raw)

    def forget(self, key: str) -> None:
        """Drop session ``key``'s previous body."""
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old.raw)


def _extend(entry: _Entry, raw: bytes) -> tuple[dict[str, Any], int, int] | None:
    """The body of ``raw`` built from ``entry``'s and the new history items, with the new
    offsets; None when ``raw`` is not the previous body plus items."""
    prev = memoryview(entry.raw)
    suffix = prev[entry.array_end:]
    end = len(raw) - len(suffix)
    if end < entry.items_end or not raw.startswith(prev[:entry.items_end]) or not raw.endswith(suffix):
        return None
    middle = raw[entry.items_end:end]
    tail = middle.lstrip(WS)
    history: list[Any] = entry.body[entry.history_key]
    if not tail:
        items_end = entry.items_end
        new: list[Any] = []
    else:
        if tail[0] != 0x2C:  # ","
            return None
        try:
            new = orjson.loads(b"[[" + tail[1:] + b"]]")[0]
        except orjson.JSONDecodeError:
            return None
        if not new:  # a trailing comma: the whole body is not JSON
            return None
        items_end = end - (len(middle) - len(middle.rstrip(WS)))
    body = dict(entry.body)
    body[entry.history_key] = [*history, *new]
    return body, items_end, end


def _locate(entry: _Entry) -> bool:
    """Find where ``entry``'s history array ends (``items_end``, ``array_end``); False when it
    cannot be known for sure (then the session is parsed whole)."""
    raw, body, key = entry.raw, entry.body, entry.history_key
    keys = list(body)
    try:
        after = keys[keys.index(key) + 1:]
    except ValueError:
        return False
    rev = raw[::-1]
    tokens = _TOKEN.finditer(rev)
    first = next(tokens, None)
    if first is None or rev[first.start()] != 0x7D:  # "}"
        return False
    found: list[str] = []
    while True:  # the top-level pairs, last first
        tok = next(tokens, None)
        if tok is None:
            return False
        at = tok.start()
        c = rev[at]
        if len(found) == len(after):  # the history's value must end here
            if c != 0x5D:  # "]"
                return False
            break
        if c in _CLOSE:
            depth = 1
            while depth:
                inner = next(tokens, None)
                if inner is None:
                    return False
                ic = rev[inner.start()]
                if ic in _CLOSE:
                    depth += 1
                elif ic in _OPEN:
                    depth -= 1
            tok = next(tokens, None)
        elif c == 0x22:  # a string value
            tok = next(tokens, None)
        if tok is None or rev[tok.start()] != 0x3A:  # ":" (a scalar value is skipped by the tokenizer)
            return False
        name = next(tokens, None)
        if name is None or rev[name.start()] != 0x22:
            return False
        found.append(orjson.loads(name.group()[::-1]))
        sep = next(tokens, None)
        if sep is None or rev[sep.start()] != 0x2C:  # ","
            return False
    found.reverse()
    if found != after or key in found:
        return False
    array_end = len(raw) - 1 - at
    items_end = array_end
    while raw[items_end - 1] in WS:
        items_end -= 1
    if raw[items_end - 1] == 0x5B:  # "[": an empty history
        return False
    # the key just before the array: the last '"key"' : [ whose span [ ... ] parses as one value
    quoted = orjson.dumps(key)
    start_search = array_end
    while True:
        at_key = raw.rfind(quoted, 0, start_search)
        if at_key < 0:
            return False
        start_search = at_key
        slashes = 0
        while at_key - slashes > 0 and raw[at_key - slashes - 1] == 0x5C:
            slashes += 1
        if slashes % 2:
            continue  # an escaped quote inside a string
        rest = raw[at_key + len(quoted):array_end + 1].lstrip(WS)
        if rest[:1] != b":":
            continue
        rest = rest[1:].lstrip(WS)
        if rest[:1] != b"[":
            continue
        try:
            value = orjson.loads(rest)
        except orjson.JSONDecodeError:
            continue
        if len(value) != len(body[key]):  # the span is one value, so this holds: a cheap sanity check
            return False
        entry.items_end, entry.array_end = items_end, array_end
        return True
