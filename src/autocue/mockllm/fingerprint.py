"""Request fingerprints: what a recorded request looked like, compactly, so replay can tell when
the agent sends something else (``--match strict|loose|off``).

A ``Fingerprint`` is read from a request of any wire API (its ``RequestView``): the API, the
model, the declared tool names and a hash of their definitions, and one entry per message of
the history (a leading entry for a system prompt sent outside it): its role, a hash of its
content and the tool-call ids it carries. What varies from run to run of a deterministic agent
is left out:

- ids (``id``, ``call_id``, ``tool_call_id``, ``tool_use_id``, ``toolCallId``) are not hashed; a
  message keeps only *which* ids it carries, numbered by first appearance in the conversation
  (``a1b2c3d4@0,1`` then ``t5e6f7a8@0``): an agent that numbers its calls with fresh uuids
  matches itself, a tool result sent for another call does not;
- opaque blobs the server issued (``encrypted_content``, ``signature``, ``thoughtSignature``);
- in every string, UUIDs, ISO dates and times, paths under the temporary directory, hex or decimal
  ids of six characters or more and fractional numbers (timings).

``autocue record`` writes each request's fingerprint on the turn it answered, as
``_meta.request`` (``to_json``): ``{"api", "model", "tools", "schemas", "keep", "add"}`` where
``keep`` counts the leading messages equal to the previous recorded request's (so a recording
grows linearly with its conversation) and ``add`` lists the entries after them. ``expand``
turns a scenario's recorded entries back into whole fingerprints; ``compare`` lists the
differences field by field (``tools: + grep, - find``; ``messages[4].role: recorded tool, live
user``).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from autocue.mockllm.incoming import Incoming

__all__ = ["MATCH_MODES", "Conversation", "Fingerprint", "compare", "expand", "fingerprint", "nearest"]

MATCH_MODES = ("strict", "loose", "off")
"""``--match`` values: fail a differing request, serve it and report the difference, or do not compare."""
ID_KEYS = frozenset({"id", "call_id", "tool_call_id", "tool_use_id", "toolCallId", "callId"})
OPAQUE_KEYS = frozenset({"encrypted_content", "signature", "thoughtSignature", "thought_signature"})
_ROLE = {"user": "u", "assistant": "a", "tool": "t", "system": "s"}
_VARYING = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|(?:/private)?" + re.escape(tempfile.gettempdir().rstrip("/")) + r"/[^\s\"'\\<>]*"
    r"|\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{6,}\b"
    r"|\d+\.\d+"
    r"|(?i:\bp(?:g|p)?id\b)\W{0,3}\d+")
"""What differs between two runs of the same agent inside strings: UUIDs, dates and times, temporary paths,
hex or decimal ids of six characters or more (Codex's ``Chunk ID: 21f601``, process ids) and fractional numbers
(``Wall time: 0.0012 seconds``), process ids (``Process Group PGID: 16967``). Other whole numbers (exit codes,
counts, line numbers) are kept."""


def _h(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=4).hexdigest()


def _clean(v: Any, ids: list[str]) -> Any:
    """``v`` without ids (collected into ``ids``) and opaque blobs; varying strings masked."""
    if isinstance(v, str):
        return _VARYING.sub("~", v)
    if isinstance(v, dict):
        out: dict[str, Any] = {}
        for k, x in v.items():
            if k in ID_KEYS:
                if isinstance(x, str) and x:
                    ids.append(x)
                continue
            if k in OPAQUE_KEYS and isinstance(x, str):
                continue
            out[k] = _clean(x, ids)
        return out
    if isinstance(v, list):
        return [_clean(x, ids) for x in v]
    return v


def _digest(v: Any) -> str:
    return _h(orjson.dumps(v, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS))


@dataclass(slots=True)
class Fingerprint:
    api: str
    model: str
    tools: list[str]
    schemas: str
    """Hash of the tool definitions (names, descriptions, parameter schemas)."""
    messages: list[str]
    """One entry per message: role letter (``s u a t o``), 8 hex of its content, ``@`` and the
    first-appearance numbers of the ids it carries."""

    def to_json(self, prev: Fingerprint | None = None) -> dict[str, Any]:
        """The compact form written as ``_meta.request`` (``keep``: leading messages equal to ``prev``'s)."""
        keep = 0
        if prev is not None:
            for a, b in zip(prev.messages, self.messages, strict=False):
                if a != b:
                    break
                keep += 1
        out: dict[str, Any] = {"api": self.api, "model": self.model, "tools": self.tools, "schemas": self.schemas}
        if keep:
            out["keep"] = keep
        out["add"] = self.messages[keep:]
        return out


class Conversation:
    """What one client session sent last (its messages, their entries, the ids in them), so the next
    request of the conversation reads only the messages that are new: a session of N requests costs
    O(N) message readings, not O(N²)."""

    __slots__ = ("entries", "id_counts", "ids", "lead", "messages", "numbers", "system", "tools", "tools_digest")

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.system = ""
        self.lead = 0
        """1 when ``entries`` starts with the system prompt sent outside the messages."""
        self.tools: list[Any] | None = None
        self.tools_digest = ""
        self.entries: list[str] = []
        self.ids: list[str] = []
        """Ids in order of first appearance."""
        self.numbers: dict[str, int] = {}
        """Each of ``ids`` by its number."""
        self.id_counts: list[int] = []
        """How many of ``ids`` had appeared once each message was read."""


def fingerprint(req: Incoming, conversation: Conversation | None = None) -> Fingerprint:
    """The fingerprint of ``req`` (kept on it: it is read once). With ``conversation`` (the session's),
    the messages it shares with the session's previous request are not read again."""
    view = req.view if req.sent is None else req.wire.read(req.sent, req.query, req.headers)
    cached = view.__dict__.get("_fingerprint")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    msgs = view.messages
    system = view.system
    conv = conversation if conversation is not None else Conversation()
    keep = 0
    if conv.system == system:
        old = conv.messages
        limit = min(len(old), len(msgs))
        while keep < limit and old[keep] == msgs[keep]:
            keep += 1
    else:
        conv.system = system
    appended = keep == len(conv.messages) and keep > 0
    if keep == 0:
        conv.entries, conv.ids, conv.id_counts, conv.lead, conv.numbers = [], [], [], 0, {}
        if system and not any(isinstance(m, dict) and req.wire.normalize_last(m).role == "system" for m in msgs):
            conv.entries.append("s" + _h(_VARYING.sub("~", system).encode("utf-8", "surrogatepass")))
            conv.lead = 1
    else:
        del conv.entries[conv.lead + keep:]
        del conv.ids[conv.id_counts[keep - 1]:]
        del conv.id_counts[keep:]
    if not appended:  # some messages were dropped: number the ids that are left
        conv.numbers = {i: n for n, i in enumerate(conv.ids)}
    numbers = conv.numbers
    ids: list[str] = []
    for m in msgs[keep:]:
        role = req.wire.normalize_last(m).role if isinstance(m, dict) else "other"
        del ids[:]
        entry = _ROLE.get(role, "o") + _digest(_clean(m, ids))
        if ids:
            nums = []
            for i in ids:
                n = numbers.get(i)
                if n is None:
                    n = numbers[i] = len(conv.ids)
                    conv.ids.append(i)
                nums.append(str(n))
            entry += "@" + ",".join(nums)
        conv.entries.append(entry)
        conv.id_counts.append(len(conv.ids))
    conv.messages = msgs
    tools = view.tools
    if conv.tools is None or conv.tools != tools:
        conv.tools, conv.tools_digest = tools, _digest(_clean(tools, []))
    fp = Fingerprint(req.api, req.model, list(view.declared_tools), conv.tools_digest, list(conv.entries))
    view.__dict__["_fingerprint"] = fp
    return fp


def expand(recorded: Iterable[dict[str, Any] | None]) -> list[Fingerprint | None]:
    """Whole fingerprints from a recording's ``_meta.request`` entries, in file order (``keep``
    refers to the previous entry); a malformed or missing entry gives None (not compared)."""
    out: list[Fingerprint | None] = []
    prev: Fingerprint | None = None
    for d in recorded:
        fp = None
        if isinstance(d, dict) and isinstance(d.get("add"), list):
            keep = d.get("keep") or 0
            base = prev.messages[:keep] if prev is not None and isinstance(keep, int) else []
            tools = d.get("tools")
            fp = Fingerprint(str(d.get("api") or ""), str(d.get("model") or ""),
                             [str(t) for t in tools] if isinstance(tools, list) else [],
                             str(d.get("schemas") or ""), [*base, *(str(x) for x in d["add"])])
            prev = fp
        out.append(fp)
    return out


def _role_name(entry: str) -> str:
    return {"u": "user", "a": "assistant", "t": "tool", "s": "system"}.get(entry[:1], "other")


def compare(rec: Fingerprint, live: Fingerprint, limit: int = 3) -> list[str]:
    """The differences of ``live`` from ``rec``, one line each, field by field ([] when equal)."""
    out: list[str] = []
    if rec.api != live.api:
        out.append(f"api: recorded {rec.api}, live {live.api}")
    if rec.model != live.model:
        out.append(f"model: recorded {rec.model}, live {live.model}")
    if rec.tools != live.tools:
        added = [t for t in live.tools if t not in rec.tools]
        gone = [t for t in rec.tools if t not in live.tools]
        parts = [f"+ {t}" for t in added] + [f"- {t}" for t in gone]
        out.append("tools differ: " + (", ".join(parts) if parts else "same names, another order"))
    elif rec.schemas != live.schemas:
        out.append("tool definitions differ (same names; a description or parameter schema changed)")
    shown = 0
    for i, (a, b) in enumerate(zip(rec.messages, live.messages, strict=False)):
        if a == b:
            continue
        if shown == limit:
            out.append("... (later messages differ too)")
            break
        shown += 1
        if a[:1] != b[:1]:
            out.append(f"messages[{i}].role: recorded {_role_name(a)}, live {_role_name(b)}")
        elif a[1:9] != b[1:9]:
            out.append(f"messages[{i}] ({_role_name(a)}): content differs")
        else:
            out.append(f"messages[{i}] ({_role_name(a)}): tool-call ids differ (recorded {a[10:] or 'none'}, "
                       f"live {b[10:] or 'none'})")
    if len(rec.messages) != len(live.messages) and shown < limit:
        n, m = len(rec.messages), len(live.messages)
        extra = live.messages[n:] if m > n else rec.messages[m:]
        roles = ", ".join(_role_name(e) for e in extra[:5]) + (", ..." if len(extra) > 5 else "")
        out.append(f"messages: recorded {n}, live {m} ({'+' if m > n else '-'} {roles})")
    return out


def nearest(recorded: list[Fingerprint | None], live: Fingerprint, expected: int) -> tuple[int, list[str]]:
    """The recorded request ``live`` is closest to (fewest differences; ties: nearest ``expected``)
    and its differences; ``(-1, [])`` when nothing was recorded."""
    best = (-1, [""] * 10_000)
    for i, fp in enumerate(recorded):
        if fp is None:
            continue
        d = compare(fp, live)
        if len(d) < len(best[1]) or (len(d) == len(best[1]) and abs(i - expected) < abs(best[0] - expected)):
            best = (i, d)
    return best if best[0] >= 0 else (-1, [])
