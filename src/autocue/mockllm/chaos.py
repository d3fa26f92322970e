"""Chaos in the mock server: a spec (``autocue.script.chaos``) turned into what one request gets.

``ChaosTracker.decide(spec, scope)`` draws the faults of one request (seeded by the spec's
seed, the scope — a session, or a step of a session — and the request's number in that
scope) and returns a ``ChaosPlan``; ``shape(plan, segments, output_tokens)`` applies the
plan's latency, stall, malformed frame, cut and reset to the frames of a streamed reply.

Faults that keep the client from receiving an intact reply (an error, a reset, a cut, a
malformed frame) leave the scripted step unplayed, so a retry gets the same reply.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autocue.mockllm.wire.common import Segments

if TYPE_CHECKING:
    from autocue.script.chaos import ChaosSpec

LOSES_REPLY = ("error", "reset", "cut", "malformed")


@dataclass(slots=True)
class ChaosPlan:
    """What one request gets: a status to answer instead, a reset after N events (0: before
    any byte), a cut or a malformed frame at an event, a stall, and the random source of the
    waits."""

    spec: ChaosSpec
    rng: random.Random
    error: int | None = None
    reset_at: int | None = None
    cut_at: int | None = None
    malformed_at: int | None = None
    stall: float = 0.0

    @property
    def loses_reply(self) -> bool:
        return any(x is not None for x in (self.error, self.reset_at, self.cut_at, self.malformed_at))

    def wait(self, seconds: float) -> float:
        j = self.spec.jitter
        if seconds <= 0 or j <= 0:
            return max(0.0, seconds)
        return seconds * self.rng.uniform(1.0 - j, 1.0 + j)

    def error_headers(self) -> dict[str, str]:
        h = {"x-autocue-error": "chaos"}
        ra = self.spec.retry_after
        if ra is not None:
            h["retry-after"] = str(max(0, int(-(-ra // 1))))
            h["retry-after-ms"] = str(int(ra * 1000))
        return h


class ChaosTracker:
    """Request numbers and fault counts per scope (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[str, int] = {}
        self._fired: dict[tuple[str, str], int] = {}

    def decide(self, spec: ChaosSpec, scope: str) -> ChaosPlan:
        from autocue.script.chaos import FAULTS  # loaded with the spec

        with self._lock:
            n = self._requests.get(scope, 0)
            self._requests[scope] = n + 1
            rng = random.Random(f"{spec.seed}|{scope}|{n}")
            plan = ChaosPlan(spec, rng)
            for name in FAULTS:
                f = spec.faults.get(name)
                draw = rng.random()  # drawn for every fault, so one fault's cap never shifts another's draws
                if f is None or draw >= f.p:
                    continue
                key = (scope, name)
                if f.times is not None and self._fired.get(key, 0) >= f.times:
                    continue
                if name == "error" and plan.reset_at == 0:
                    continue
                self._fired[key] = self._fired.get(key, 0) + 1
                if name == "error":
                    plan.error = int(f.value)
                elif name == "reset":
                    plan.reset_at = int(f.value)
                elif name == "cut":
                    plan.cut_at = int(f.value)
                elif name == "malformed":
                    plan.malformed_at = int(f.value)
                else:
                    plan.stall = f.value
            if plan.error is not None and plan.reset_at == 0:
                plan.error = None
            return plan


def broken(frame: bytes) -> bytes:
    """``frame`` with its JSON cut in half: still a complete SSE frame, no longer JSON."""
    at = frame.find(b"data:")
    head = at + 5 if at >= 0 else 0
    body = frame[head:].rstrip(b"\r\n")
    return frame[:head] + body[: max(1, len(body) // 2)] + b"\n\n"


def shape(plan: ChaosPlan, segments: Segments, output_tokens: int) -> Segments:
    """The frames of a streamed reply as ``plan`` serves them (cut, malformed, timed)."""
    spec = plan.spec
    frames = [(d, f) for d, f in segments if f]
    tail = sum(d for d, f in segments if not f)
    if plan.cut_at is not None:
        frames = frames[: plan.cut_at]
    if plan.reset_at is not None:
        frames = frames[: plan.reset_at]
    if plan.malformed_at is not None and plan.malformed_at <= len(frames):
        k = plan.malformed_at - 1
        frames[k] = (frames[k][0], broken(frames[k][1]))
    per_event = output_tokens / spec.tps / max(1, len(frames)) if spec.tps > 0 else 0.0
    out: Segments = []
    for i, (d, f) in enumerate(frames):
        wait = d + plan.wait(spec.latency if i == 0 else per_event)
        if plan.stall > 0 and i == spec.stall_at:
            wait += plan.stall
        out.append((wait, f))
    if plan.stall > 0 and spec.stall_at >= len(frames):
        out.append((plan.stall, b""))
    if tail > 0:
        out.append((tail, b""))
    return out


def body_delay(plan: ChaosPlan, output_tokens: int) -> float:
    """The wait before a non-streamed reply: time to first token, generation time, a stall."""
    spec = plan.spec
    gen = output_tokens / spec.tps if spec.tps > 0 else 0.0
    return plan.wait(spec.latency) + plan.wait(gen) + plan.stall


def reset_connection(transport: Any) -> None:
    """Close the client's connection with a TCP reset (``SO_LINGER`` 0, then abort)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:  # already closed by the peer
            pass
    transport.abort()


__all__ = ["LOSES_REPLY", "ChaosPlan", "ChaosTracker", "body_delay", "broken", "reset_connection", "shape"]
