"""Look-ups over the agent CLIs of ``autocue.catalog.clis.CLIS``: by name or alias, their launch
and tool profiles, the tool profile a request's declared tools point to, their side calls.

The registry is read at each call (its index is rebuilt when ``CLIS`` is another tuple), so a CLI
added to it, such as a test's toy CLI, is seen by the runner, the mock server and the CLI alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from autocue.catalog import clis as _registry
from autocue.catalog.cli import AgentCli, Detect, SideCall
from autocue.catalog.launch import AgentProfile
from autocue.catalog.tools import ToolProfile, map_script
from autocue.script.model import Script


@dataclass(frozen=True, slots=True)
class _Index:
    clis: tuple[AgentCli, ...]
    by_name: dict[str, AgentCli]
    profiles: dict[str, ToolProfile]
    """Tool profiles by their names, then a CLI's first one by the CLI's names."""
    profile_names: tuple[str, ...]
    detects: tuple[Detect, ...]
    side_calls: tuple[SideCall, ...]
    side_calls_with_tools: tuple[SideCall, ...]
    """Those a request that declares tools may be (not ``tool_less``)."""
    detected: dict[frozenset[str], ToolProfile | None] = field(default_factory=dict)
    """``detect_profile``'s answers by declared tool set (an agent declares the same tools in every
    session); rebuilt with the index, bounded by ``_DETECTED_MAX``."""


def _build(clis: tuple[AgentCli, ...]) -> _Index:
    by_name: dict[str, AgentCli] = {}
    profiles: dict[str, ToolProfile] = {}
    for cli in clis:
        for name in cli.names:
            if name in by_name:
                raise ValueError(f"agent CLIs {by_name[name].name!r} and {cli.name!r} both take the name {name!r}")
            by_name[name] = cli
        profiles.update((p.name, p) for p in cli.tools)
    names = tuple(profiles)
    for cli in clis:
        if cli.tools:
            for name in cli.names:
                profiles.setdefault(name, cli.tools[0])
    detects = tuple(d for cli in sorted(clis, key=lambda c: c.detect_rank) for d in cli.detect)
    calls = tuple(s for cli in clis for s in cli.side_calls)
    return _Index(clis, by_name, profiles, names, detects, calls, tuple(s for s in calls if not s.tool_less))


_memo: list[_Index] = []
_DETECTED_MAX = 256


def _index() -> _Index:
    current = _registry.CLIS
    if not _memo or _memo[0].clis is not current:
        _memo[:] = [_build(current)]
    return _memo[0]


def agent_clis() -> tuple[AgentCli, ...]:
    """Every agent CLI, in the registry's order."""
    return _index().clis


def find_cli(name: str) -> AgentCli | None:
    """The CLI called ``name`` (its name or an alias: ``claude``, ``claude-code``)."""
    return _index().by_name.get(name)


def launch_profiles() -> dict[str, AgentProfile]:
    """Each CLI's launch profile by its name, in the registry's order."""
    return {cli.name: cli.launch for cli in _index().clis}


def profile_names() -> tuple[str, ...]:
    """The tool profiles' names (``claude-code``, ``claude-code-2.0``, ``codex``, ...)."""
    return _index().profile_names


def get_profile(name: str) -> ToolProfile:
    """The tool profile called ``name``, or the first one of the CLI called ``name`` (``claude`` is
    ``claude-code``, ``gemini`` is ``gemini-cli``)."""
    index = _index()
    p = index.profiles.get(name)
    if p is None:
        raise ValueError(f"unknown tool profile {name!r}; known profiles: {', '.join(index.profile_names)}")
    return p


def detect_profile(declared_tool_names: Iterable[str]) -> ToolProfile | None:
    """Guess the agent from the tool names its request declares; ``None`` when nothing fits."""
    n = frozenset(declared_tool_names)
    if not n:
        return None
    index = _index()
    if n in index.detected:
        return index.detected[n]
    found = next((d.profile for d in index.detects if d.signature.matches(n)), None)
    if len(index.detected) >= _DETECTED_MAX:
        index.detected.clear()
    index.detected[n] = found
    return found


def side_calls(*, with_tools: bool = False) -> tuple[SideCall, ...]:
    """Every CLI's side calls, in the registry's order (``with_tools``: only those a request that
    declares tools may be)."""
    index = _index()
    return index.side_calls_with_tools if with_tools else index.side_calls


def apply_profile(script: Script, profile: ToolProfile | str) -> Script:
    """A new ``Script`` whose tool calls use ``profile``'s names and arguments (the input is unchanged)."""
    return map_script(script, get_profile(profile) if isinstance(profile, str) else profile)
