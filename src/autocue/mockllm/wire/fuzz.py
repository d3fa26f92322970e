"""Stream fuzzing: the same scripted content as valid but adversarial streams.

A fuzz spec is ``SEED`` or ``SEED,option=value,...`` (``--fuzz 17``, ``--fuzz 17,splits=2,ping=0``):

==============  ======  ==============================================================
``splits=N``    8       at most N extra cuts in each streamed text, thinking or JSON
                        argument string (at code points; 0: the normal 24-character deltas)
``empty``       1       empty deltas (cuts that leave an empty piece)
``ping``        1       Anthropic ``ping`` events between any two events
``comments``    1       SSE keep-alive comments (``: keep-alive``) between events
``interleave``  1       parallel tool-call deltas interleaved (OpenAI Chat, by ``index``)
``crlf``        1       ``\\r\\n`` line endings on some frames
``tcp``         1       the body written in pieces cut at any byte (inside UTF-8 sequences)
``escape``      1       tool arguments as ASCII JSON (``\\u00e9``, surrogate pairs
                        ``\\ud83d\\ude00``), so a cut can fall inside an escape or a pair
==============  ======  ==============================================================

Every choice is drawn from ``random.Random(f"{seed}|{reply seed}")``: the same spec and the
same scenario give the same bytes, so a failing spec reproduces (``autocue serve --fuzz``).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any, TypeVar

from autocue.mockllm.errors import FuzzSpecError as FuzzSpecError

FEATURES = ("empty", "ping", "comments", "interleave", "crlf", "tcp", "escape")
KEEP_ALIVE = b": keep-alive\n\n"
DEFAULT_SPLITS = 8


@dataclass(frozen=True, slots=True)
class FuzzSpec:
    seed: int
    splits: int = DEFAULT_SPLITS
    empty: bool = True
    ping: bool = True
    comments: bool = True
    interleave: bool = True
    crlf: bool = True
    tcp: bool = True
    escape: bool = True

    @property
    def text(self) -> str:
        """The spec as written back: the seed, then every option that is not the default."""
        out = [str(self.seed)]
        for f in fields(self)[1:]:
            v = getattr(self, f.name)
            if v != f.default:
                out.append(f"{f.name}={int(v)}")
        return ",".join(out)

    def without(self, feature: str) -> FuzzSpec:
        return replace(self, **{feature: False})


@lru_cache(maxsize=256)
def parse_fuzz(text: str) -> FuzzSpec:
    """``SEED[,option=value...]`` (see the module doc)."""
    items = [t.strip() for t in text.split(",")]
    try:
        seed = int(items[0])
    except ValueError:
        raise FuzzSpecError(f"fuzz spec {text!r}: {items[0]!r} is not a seed; start with a whole number, e.g. "
                            "17 or 17,splits=2") from None
    opts: dict[str, Any] = {}
    for item in items[1:]:
        name, eq, value = item.partition("=")
        if name != "splits" and name not in FEATURES:
            raise FuzzSpecError(f"fuzz spec {text!r}: unknown option {name!r} (known: splits, {', '.join(FEATURES)})")
        if not eq or not value.isdigit() or (name != "splits" and value not in ("0", "1")):
            want = "a whole number" if name == "splits" else "0 or 1"
            raise FuzzSpecError(f"fuzz spec {text!r}: {item!r} needs {want}, e.g. {name}=" +
                                ("2" if name == "splits" else "0"))
        opts[name] = int(value) if name == "splits" else value == "1"
    return FuzzSpec(seed, **opts)


class Fuzzer:
    """The choices of one fuzzed reply (``key`` is the reply's seed)."""

    __slots__ = ("rng", "spec")

    def __init__(self, spec: FuzzSpec, key: str) -> None:
        self.spec = spec
        self.rng = random.Random(f"{spec.seed}|{key}")

    def pieces(self, text: str) -> list[str]:
        """``text`` cut at up to ``splits`` code points (maybe into empty pieces)."""
        n = len(text)
        if n == 0:
            return [""] * (1 + (self.rng.random() < 0.5)) if self.spec.empty else [""]
        r = self.rng
        k = r.randint(0, self.spec.splits)
        if k == 0:
            return [text]
        if self.spec.empty:
            return _cut(text, sorted(r.choices(range(n + 1), k=k)))
        return _cut(text, sorted(r.sample(range(1, n), min(k, n - 1))) if n > 1 else [])

    def args_json(self, args: dict[str, Any], compact: str) -> str:
        """The tool arguments as JSON text: compact, or ASCII-escaped with spaces."""
        if self.spec.escape and self.rng.random() < 0.5:
            return json.dumps(args, ensure_ascii=True)
        return compact

    def between(self, ping: bytes | None) -> list[bytes]:
        """Extra frames before the next event: keep-alive comments, Anthropic pings."""
        out: list[bytes] = []
        r = self.rng
        if self.spec.comments and r.random() < 0.15:
            out.append(KEEP_ALIVE)
        if ping is not None and self.spec.ping and r.random() < 0.2:
            out.append(ping)
        return out

    def line_ends(self, frame: bytes) -> bytes:
        if self.spec.crlf and self.rng.random() < 0.3:
            return frame.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        return frame

    def interleave(self, runs: list[list[bytes]]) -> list[bytes]:
        """Merge ``runs`` in a random order that keeps each run's own order and starts the
        runs in order (a call's first delta never comes before the previous call's: the
        official SDKs index their list of calls by ``index``)."""
        if not self.spec.interleave or len(runs) < 2:
            return [f for run in runs for f in run]
        pending = [list(reversed(run)) for run in runs if run]
        started: list[list[bytes]] = []
        out: list[bytes] = []
        while pending or started:
            i = self.rng.randrange(len(started) + (1 if pending else 0))
            if i == len(started):
                started.append(pending.pop(0))
            run = started[i]
            out.append(run.pop())
            if not run:
                started.pop(i)
        return out

    def tcp_pieces(self, body: bytes) -> list[bytes]:
        """``body`` cut at random byte offsets (inside UTF-8 sequences too)."""
        if not self.spec.tcp or len(body) < 2:
            return [body]
        k = self.rng.randint(1, min(16, len(body) - 1))
        return _cut(body, sorted(self.rng.sample(range(1, len(body)), k)))


S = TypeVar("S", str, bytes)


def _cut(seq: S, cuts: list[int]) -> list[S]:
    """``seq`` in the pieces between the (sorted) offsets ``cuts``."""
    return [seq[a:b] for a, b in zip([0, *cuts], [*cuts, len(seq)], strict=True)]


__all__ = ["DEFAULT_SPLITS", "FEATURES", "FuzzSpec", "FuzzSpecError", "Fuzzer", "parse_fuzz"]
