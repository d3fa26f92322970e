"""Tool profiles for the mock server: which agent a session talks to, and how scenario tool
calls (``runCmd``, ``readFile``, ...) become that agent's tool calls.

The profiles are the catalogue's (``autocue.catalog``: ``get_profile``, ``detect_profile``,
``ToolProfile.map_call``; ``Profile`` is ``ToolProfile``). A session's profile is, in order: the
server's ``--profile``, the request's ``x-autocue-profile`` header, or the profile detected
from the tools the request declares. No profile means tool calls pass through unchanged; so does a tool name the
profile does not know.

``tool_difference(profile, declared)`` is the detail ``--strict-tools`` reports: the profile's
tools the request does not declare, and declared tools the profile does not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from autocue.catalog.registry import detect_profile, get_profile
from autocue.catalog.tools import ToolProfile as Profile


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
