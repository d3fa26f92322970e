"""Chaos specs: what faults and latency a mock server adds to scripted replies.

A spec is items separated by ``,`` or ``;``, each ``name[=value][@probability][*times]``::

    latency=200ms,tps=50,jitter=0.2;error=429@0.1;cut=5;stall=2s;reset@0.05;seed=7

========================  =================================================================
``latency=DUR``           time to first token (``ttft`` is a synonym): wait before the first event
``tps=N``                 tokens per second: the reply's output tokens spread over its events
``jitter=F``              every wait multiplied by a uniform factor in ``[1-F, 1+F]`` (0 ≤ F ≤ 1)
``error=STATUS``          answer STATUS (4xx/5xx) with the API's error body instead of the reply
``retry-after=DUR``       the ``retry-after`` / ``retry-after-ms`` headers of an injected error
                          (default 1s; ``retry-after=none`` sends neither)
``cut=N``                 end the stream cleanly after N events (no final event, no ``[DONE]``)
``malformed=N``           event N (1-based) is a frame whose JSON is cut in half
``stall=DUR``             no bytes for DUR, after ``stall-at`` events (default 1)
``reset`` / ``reset=N``   a TCP reset: before any byte (``reset``) or after N events
``seed=N``                the seed of every draw (default 0)
========================  =================================================================

``@P`` makes a fault fire with probability P per request (default 1); ``*N`` caps how many
times it fires (per session for a server or header spec, per step for a step's spec).
Durations take a unit: ``250ms``, ``2s``, ``1.5s``. The draws depend only on the seed, the
session (or step) and the request's number in it, so a run replays the same faults.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from autocue.script.errors import ChaosSpecError as ChaosSpecError

FAULTS = ("error", "reset", "cut", "malformed", "stall")
"""Faults in the order they are drawn."""

_DURATION = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)(ms|s)$")
_ITEM = re.compile(r"^(?P<name>[a-z][a-z-]*)(?:=(?P<value>[^@*]*))?(?:@(?P<p>[^*]*))?(?:\*(?P<times>.*))?$")
_NAMES = ("latency", "ttft", "tps", "jitter", "error", "retry-after", "cut", "malformed", "stall", "stall-at", "reset",
          "seed")


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of a spec: its value (status, events or seconds), probability and cap."""

    value: float
    p: float = 1.0
    times: int | None = None


@dataclass(frozen=True, slots=True)
class ChaosSpec:
    """A parsed chaos spec (``parse_chaos``); ``text`` is what was written."""

    text: str = ""
    latency: float = 0.0
    tps: float = 0.0
    jitter: float = 0.0
    retry_after: float | None = 1.0
    stall_at: int = 1
    seed: int = 0
    faults: dict[str, Fault] = field(default_factory=dict)

    @property
    def shapes_time(self) -> bool:
        return self.latency > 0 or self.tps > 0


def _duration(v: str, where: str) -> float:
    m = _DURATION.match(v.strip())
    if m is None:
        raise ChaosSpecError(f"{where}: {v!r} is not a duration; write it with a unit, e.g. 200ms or 2s")
    n = float(m.group(1))
    return n / 1000.0 if m.group(2) == "ms" else n


def _number(v: str, where: str, *, lo: float = 0.0, hi: float = math.inf, integer: bool = False) -> float:
    try:
        n = int(v) if integer else float(v)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise ChaosSpecError(f"{where}: {v!r} is not {kind}") from None
    if not lo <= n <= hi:
        bound = f"between {lo:g} and {hi:g}" if hi != math.inf else f"{lo:g} or more"
        raise ChaosSpecError(f"{where}: {v!r} must be {bound}")
    return float(n)


@lru_cache(maxsize=256)
def parse_chaos(text: str) -> ChaosSpec:
    """Parse ``text`` (see the module doc); ``ChaosSpecError`` names the bad item and column."""
    values: dict[str, float] = {}
    faults: dict[str, Fault] = {}
    retry_after: float | None = 1.0
    col = 1
    if not text.strip():
        raise ChaosSpecError("chaos spec is empty: give items such as latency=200ms,error=429@0.1")
    for raw in re.split(r"([,;])", text):
        if raw in (",", ";"):
            col += 1
            continue
        item = raw.strip()
        where = f"chaos spec {text!r}: item {item!r} (col {col + len(raw) - len(raw.lstrip())})"
        col += len(raw)
        if not item:
            continue
        m = _ITEM.match(item)
        if m is None or m.group("name") not in _NAMES:
            name = m.group("name") if m else item
            raise ChaosSpecError(f"{where}: unknown item {name!r} (known: {', '.join(_NAMES)})")
        name, value, p, times = m.group("name"), m.group("value"), m.group("p"), m.group("times")
        if name == "ttft":
            name = "latency"
        if name not in FAULTS and (p is not None or times is not None):
            raise ChaosSpecError(f"{where}: only faults ({', '.join(FAULTS)}) take @probability or *times")
        if value is None and name != "reset":
            raise ChaosSpecError(f"{where}: {name} needs a value, e.g. {name}=" + {
                "latency": "200ms", "tps": "50", "jitter": "0.2", "error": "429", "retry-after": "1s", "cut": "5",
                "malformed": "3", "stall": "2s", "stall-at": "1", "seed": "7"}[name])
        v = value if value is not None else ""
        if name in ("latency",):
            values[name] = _duration(v, where)
        elif name == "tps":
            values[name] = _number(v, where, lo=0.001)
        elif name == "jitter":
            values[name] = _number(v, where, hi=1.0)
        elif name == "retry-after":
            retry_after = None if v == "none" else _duration(v, where)
        elif name in ("stall-at", "seed"):
            values[name] = _number(v, where, integer=True)
        else:
            if name == "error":
                amount = _number(v, where, lo=400, hi=599, integer=True)
            elif name == "stall":
                amount = _duration(v, where)
            elif name == "reset":
                amount = _number(v, where, integer=True) if v else 0.0
            else:
                amount = _number(v, where, lo=0 if name == "cut" else 1, integer=True)
            prob = _number(p, where, hi=1.0) if p is not None else 1.0
            cap = int(_number(times, where, lo=1, integer=True)) if times is not None else None
            faults[name] = Fault(amount, prob, cap)
    return ChaosSpec(text=text, latency=values.get("latency", 0.0), tps=values.get("tps", 0.0),
                     jitter=values.get("jitter", 0.0), retry_after=retry_after,
                     stall_at=int(values.get("stall-at", 1)), seed=int(values.get("seed", 0)), faults=faults)


__all__ = ["FAULTS", "ChaosSpec", "ChaosSpecError", "Fault", "parse_chaos"]
