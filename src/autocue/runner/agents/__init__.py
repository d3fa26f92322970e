"""Launch profiles of real agent CLIs: each CLI's declarative ``AgentProfile`` is in its catalogue
entry (``autocue.catalog.clis``: ``claude``, ``codex``, ``opencode``, ``pi``, ``gemini``, ``aider``,
``autocue``), plus user-defined profiles from TOML or YAML files (``user``); how a run is prepared
from one is ``base``.

``profiles(files)`` are the profiles by name; ``installed(profile)`` its binary and version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autocue.catalog.launch import AgentProfile
from autocue.catalog.registry import launch_profiles
from autocue.runner.agents.base import find_binary

BUILTIN: dict[str, AgentProfile] = launch_profiles()
"""The catalogue's launch profiles when this module was imported (``profiles()`` reads the catalogue at each call)."""


def profiles(files: Sequence[str | Path] = ()) -> dict[str, AgentProfile]:
    """The built-in profiles (the catalogue's), then those of ``files`` (a user profile may replace a built-in one)."""
    out = launch_profiles()
    if files:
        from autocue.runner.agents.user import load_profiles

        for f in files:
            out.update(load_profiles(Path(f)))
    return out


@dataclass(frozen=True, slots=True)
class Installed:
    profile: AgentProfile
    path: str | None
    version: str | None

    @property
    def verified(self) -> bool:
        return self.version is not None and self.version in self.profile.verified


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.][0-9A-Za-z.]+)?")


def installed(profile: AgentProfile, timeout: float = 20.0) -> Installed:
    """Where the CLI is and the version it reports (``--version``), or None for each."""
    if profile.name == "autocue":
        import sys

        return Installed(profile, sys.executable + " -m autocue", profile.version)
    path = find_binary(profile)
    if path is None:
        return Installed(profile, None, None)
    from autocue.process import capture_sync

    try:
        proc = capture_sync([path, *profile.version_args], timeout=timeout)  # a timeout stops its whole group
    except OSError:
        return Installed(profile, path, None)
    if proc.stopped is not None:
        return Installed(profile, path, None)
    m = _VERSION.search(proc.stdout + proc.stderr)
    return Installed(profile, path, m.group(0) if m else None)


__all__ = ["BUILTIN", "AgentProfile", "Installed", "find_binary", "installed", "profiles"]
