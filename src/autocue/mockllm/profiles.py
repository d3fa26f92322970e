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
from typing import Any

from autocue.catalog.registry import detect_profile, get_profile
from autocue.catalog.tools import ToolProfile as Profile
from autocue.catalog.tools import canonical_tool_name
from autocue.mockllm.reply import CallMapper


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


def as_declared(mapper: CallMapper | None, declared: list[str]) -> CallMapper | None:
    """``mapper`` (a profile's, or None), then: a call of a tool the request does not declare under
    that name but under a spelling the scenario loader rewrites to it (it loads ``write_file`` as
    ``writeFile``) goes out under the declared spelling."""
    spellings = {canonical_tool_name(d): d for d in declared if canonical_tool_name(d) != d}
    if not spellings:
        return mapper
    known = set(declared)

    def mapped(name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        name, args = mapper(name, args) if mapper is not None else (name, args)
        return (spellings.get(name, name) if name not in known else name), args

    return mapped


__all__ = ["as_declared", "Profile", "ToolDifference", "detect_profile", "get_profile", "tool_difference"]
