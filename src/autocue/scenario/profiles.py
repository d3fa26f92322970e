"""Tool profiles: scenario tool calls mapped onto a real agent's tool names and arguments.

The profiles live with their agent CLIs in the catalogue (``autocue.catalog``: the machinery in
``autocue.catalog.tools``, each CLI's tables in ``autocue.catalog.clis``); this module keeps the
names scenario users import. ``get_profile(name)``: ``autocue`` and ``pi`` (read/write/edit/bash/
grep/find/ls), ``claude-code`` (Claude Code 2.1), ``claude-code-2.0``, ``codex`` (everything through
``exec_command``), ``opencode``, ``gemini-cli``; ``claude`` and ``gemini`` are aliases.
``detect_profile(declared_tool_names)`` guesses the profile from the tools a request declares;
``apply_profile(script, profile)`` returns a copy of a ``Script`` with every call mapped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autocue.catalog.registry import apply_profile, detect_profile, get_profile, profile_names
from autocue.catalog.tools import ArgBuilder, Args, ToolMapping, ToolProfile, map_tool_call

if TYPE_CHECKING:
    PROFILE_NAMES: tuple[str, ...]


def __getattr__(name: str) -> tuple[str, ...]:
    """``PROFILE_NAMES``: the catalogue's tool profile names, read when asked (a CLI added to it is listed)."""
    if name == "PROFILE_NAMES":
        return profile_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PROFILE_NAMES", "ArgBuilder", "Args", "ToolMapping", "ToolProfile", "apply_profile", "detect_profile",
           "get_profile", "map_tool_call"]
