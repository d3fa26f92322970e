"""The catalogue: what autocue knows of each agent CLI, read by ``scenario``, ``mockllm`` and ``runner``.

One module per CLI under ``autocue.catalog.clis`` holds its ``AgentCli`` entry (``catalog/cli.py``):
its names, its launch profile (data; the runner prepares a run from it), its tool profiles
(``catalog/tools.py``), the declared tool names that identify it and the side calls it makes.
``autocue.catalog.registry`` looks them up. Adding a CLI is its module plus one line in
``autocue.catalog.clis``. ``autocue.catalog.apis`` names the wire APIs (one ``ApiEntry`` each;
the mock server's ``mockllm/wire/<api>.py`` holds the rest). Importing this package imports none of
it; each name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.catalog.cli import AgentCli, Detect, RequestView, SideCall, Signature, all_of, any_of, at_least
    from autocue.catalog.launch import AgentProfile
    from autocue.catalog.registry import agent_clis, detect_profile, find_cli, get_profile
    from autocue.catalog.tools import ToolMapping, ToolProfile

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.catalog.cli": ["AgentCli", "Detect", "RequestView", "SideCall", "Signature", "all_of", "any_of",
                            "at_least"],
    "autocue.catalog.launch": ["AgentProfile"],
    "autocue.catalog.registry": ["agent_clis", "detect_profile", "find_cli", "get_profile"],
    "autocue.catalog.tools": ["ToolMapping", "ToolProfile"],
})

__all__ = ["AgentCli", "AgentProfile", "Detect", "RequestView", "SideCall", "Signature", "ToolMapping", "ToolProfile",
           "agent_clis", "all_of", "any_of", "at_least", "detect_profile", "find_cli", "get_profile"]
