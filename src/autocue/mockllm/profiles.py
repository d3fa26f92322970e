"""Tool profiles for the mock server: which agent a session talks to, and how scenario tool
calls (``runCmd``, ``readFile``, ...) become that agent's tool calls.

The profiles are the catalogue's (``autocue.catalog``: ``get_profile``, ``detect_profile``,
``ToolProfile.map_call``; ``Profile`` is ``ToolProfile``). A session's profile is, in order: the
server's ``--profile``, the request's ``x-autocue-profile`` header, or the profile detected
from the tools the request declares. No profile means tool calls pass through unchanged (but for the
request's own spelling of a name the scenario loader made canonical: ``write_file`` stays
``write_file`` when the request declares it, ``declared_spelling``); so does a tool name the
profile does not know.

``tool_difference(profile, declared)`` is the detail ``--strict-tools`` reports: the profile's
tools the request does not declare, and declared tools the profile does not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from autocue.catalog.registry import detect_profile, get_profile
from autocue.catalog.tools import ToolProfile as Profile
from autocue.catalog.tools import canonical_tool_name
from autocue.mockllm.reply import CallMapper


def declared_spelling(declared: Iterable[str]) -> CallMapper | None:
    """With no profile: a call mapper giving a scenario tool the request's spelling of it. The loader
    makes ``write_file`` the canonical ``writeFile``; an agent that declares ``write_file`` (and not
    ``writeFile``) gets ``write_file`` back. None when no declared name is such an alias. (An agent
    declares the same tools request after request: the mapper is made once per tool list.)"""
    return _spelling(tuple(declared))


@lru_cache(maxsize=256)
def _spelling(declared: tuple[str, ...]) -> CallMapper | None:
    names = set(declared)
    spelled = {canonical_tool_name(n): n for n in dict.fromkeys(declared) if canonical_tool_name(n) != n}
    spelled = {c: n for c, n in spelled.items() if c not in names}
    if not spelled:
        return None
    return lambda name, args: (spelled.get(name, name), args)


@dataclass(slots=True)
class ToolDifference:
    missing: list[str]
    """Tools the profile expects that the request does not declare."""
    unexpected: list[str]
    """Tools the request declares that the profile does not know."""

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unexpected

    def describe(self) -> str:
        parts = []
        if self.missing:
            parts.append("missing (expected by the profile, not declared): " + ", ".join(self.missing))
        if self.unexpected:
            parts.append("unexpected (declared, unknown to the profile): " + ", ".join(self.unexpected))
        return "; ".join(parts) or "no difference"


def tool_difference(profile: Profile, declared: Iterable[str]) -> ToolDifference:
    expected = profile.agent_tool_names
    got = set(declared)
    return ToolDifference(sorted(expected - got), sorted(got - expected))


__all__ = ["Profile", "ToolDifference", "detect_profile", "get_profile", "tool_difference"]
