"""Topic glob matching for hat triggers and inspection filters.

Public surface: ``topic_matches(pattern, topic)``, ``is_wildcard(pattern)``.

Rules (ralph's ``topic.rs``): ``*`` alone matches every topic; otherwise ``*`` matches exactly
one dot-separated segment and the segment counts must be equal (``build.*`` matches
``build.done`` but not ``build`` or ``build.done.now``).
"""

from __future__ import annotations

from functools import lru_cache


def is_wildcard(pattern: str) -> bool:
    """True for the catch-all pattern ``*``."""
    return pattern == "*"


@lru_cache(maxsize=1024)
def _segments(pattern: str) -> tuple[str, ...]:
    return tuple(pattern.split("."))


def topic_matches(pattern: str, topic: str) -> bool:
    """Does ``topic`` match the trigger ``pattern``?"""
    if pattern == "*" or pattern == topic:
        return True
    if "*" not in pattern:
        return False
    ps = _segments(pattern)
    ts = topic.split(".")
    if len(ps) != len(ts):
        return False
    return all(p == "*" or p == t for p, t in zip(ps, ts, strict=True))


__all__ = ["is_wildcard", "topic_matches"]
