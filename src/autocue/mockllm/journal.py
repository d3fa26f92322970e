"""The request journal: what a session's client sent, request by request (bounded).

Every model request a session answers (a reply, a side call, a scripted error, a failed
expectation or check, an exhausted script) is kept as its ``Incoming`` plus the answer's
status and the reply it got. Nothing is summarised when the request arrives: a request the
server read from HTTP is kept as its raw bytes (``Incoming.raw``) and parsed again when asked
for, since a hundred parsed bodies of a long conversation are millions of objects that every
full pass of the cyclic GC would walk (it made each step of an 800-step loop several times
slower); ``to_json`` builds the JSON view when the admin API asks for it:
``GET /_autocue/sessions/{key}/requests`` (with bodies) and the session status (``journal``:
the same without bodies).

A session keeps its last ``JOURNAL_CAP`` requests (``serve(journal_size=N)``, ``autocue
serve --journal-size N``; 0 keeps none); ``dropped`` counts the older ones it let go.
Credentials never appear: ``authorization`` and the API-key headers are shown as
``<redacted>``.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

import orjson

from autocue.mockllm.incoming import Incoming

JOURNAL_CAP = 100
"""Requests kept per session by default (the oldest are dropped first)."""

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key", "x-autocue-admin-token",
                            "proxy-authorization", "cookie", "x-amz-security-token"})


@dataclass(slots=True)
class JournalEntry:
    n: int
    """1-based number of the request in its session (counting dropped ones)."""
    at: float
    req: Incoming
    status: int
    outcome: str
    """``reply``, ``side-call``, ``error`` (scripted), or the ``x-autocue-error`` reason."""
    reply: int | None
    """1-based index of the scripted reply the request got (None: no reply was taken)."""

    def request(self) -> Incoming:
        """The request as the server parsed it (parsed again from ``raw`` when kept so)."""
        req = self.req
        return req if req.raw is None else replace(req, body=orjson.loads(req.raw))

    def to_json(self, *, body: bool) -> dict[str, Any]:
        from autocue.mockllm.expect import normalized_last

        req = self.request()
        last = normalized_last(req)
        out: dict[str, Any] = {
            "n": self.n,
            "time": round(self.at, 3),
            "api": req.api,
            "path": req.path,
            "model": req.model,
            "stream": req.stream,
            "transport": req.transport,
            "status": self.status,
            "outcome": self.outcome,
            "reply": self.reply,
            "tools": req.declared_tools(),
            "messages": len(req.messages()),
            "last": {"role": last.role, "text": last.text[:200]} if body is False else last.to_json(),
        }
        if body:
            out["headers"] = {k: ("<redacted>" if k in SECRET_HEADERS else v) for k, v in req.headers.items()}
            out["body"] = req.body
        return out


class Journal:
    """The last ``cap`` requests of one session (not thread-safe: the session's lock guards it)."""

    __slots__ = ("cap", "count", "entries")

    def __init__(self, cap: int = JOURNAL_CAP) -> None:
        self.cap = max(0, cap)
        self.entries: deque[JournalEntry] = deque(maxlen=self.cap)
        self.count = 0

    def add(self, req: Incoming, status: int, outcome: str, reply: int | None) -> None:
        self.count += 1
        if self.cap:
            kept = req if req.raw is None else req.without_body()
            self.entries.append(JournalEntry(self.count, time.time(), kept, status, outcome, reply))

    @property
    def dropped(self) -> int:
        return self.count - len(self.entries)

    def clear(self) -> None:
        self.entries.clear()
        self.count = 0

    def to_json(self, *, body: bool) -> list[dict[str, Any]]:
        return [e.to_json(body=body) for e in list(self.entries)]
