"""Interleaved rounds: every measurement runs once per round, round after round.

This VM's speed can halve and recover within a minute. Measured one after another, two
figures can come from different speeds; interleaved, a change hits every figure of a round
alike, and a ratio taken within each round holds.

Each measure starts on a collected heap (``gc.collect()`` before it, outside its timing), so
no run pays a full GC pass over the garbage another left, pydantic-ai's in particular.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable, Hashable, Mapping


def run_rounds(measures: Mapping[Hashable, Callable[[], float]], rounds: int) -> dict[Hashable, list[float]]:
    """Samples per measure: each measure once per round, in the mapping's order."""
    out: dict[Hashable, list[float]] = {k: [] for k in measures}
    for _ in range(rounds):
        for k, fn in measures.items():
            gc.collect()
            out[k].append(fn())
    return out


def ratio_in_rounds(base: list[float], other: list[float]) -> float:
    """The median over rounds of ``other / base``, both measured in the same round."""
    return statistics.median(o / b for b, o in zip(base, other, strict=True))
