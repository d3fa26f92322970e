"""The agent CLIs autocue knows: one module per CLI, each with its ``CLI`` entry (``AgentCli``).

Adding a CLI is its module plus one line here. The order is the listing order (``autocue agents``,
the tool profiles' names); detection has its own (``AgentCli.detect_rank``). Look-ups by name,
tool profile, declared tools and side call are in ``autocue.catalog.registry``.
"""

from __future__ import annotations

from autocue.catalog.cli import AgentCli
from autocue.catalog.clis import aider, autocue, claude, codex, gemini, opencode, pi

CLIS: tuple[AgentCli, ...] = (
    claude.CLI,
    codex.CLI,
    opencode.CLI,
    pi.CLI,
    gemini.CLI,
    aider.CLI,
    autocue.CLI,
)

__all__ = ["CLIS"]
