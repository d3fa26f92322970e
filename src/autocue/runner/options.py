"""Options of a runner invocation (the ``autocue run`` flags, and ``run_scenarios`` keywords)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autocue.runner.extras import TerminalProfile


def ci_from_env() -> bool:
    """Whether the ``CI`` variable says this is a CI run: set and not empty, ``0``, ``false``, ``no`` or ``off``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


VIAS = ("print", "tui", "acp")
"""How an agent is driven (``--via``, a matrix's ``modes``): its print mode, its TUI, or over its ACP server."""


@dataclass(slots=True)
class RunOptions:
    agent: str | None = None
    """A launch profile (``mock``, ``autocue``, ``claude``, ``codex``, ...) for every scenario, over the
    scenario's own program (``autocue run --agent``)."""
    cmd: str | None = None
    """A command line for every scenario, over its own program (placeholders: see ``autocue.runner.launch``)."""
    default_agent: str | None = None
    """A launch profile for the scenarios that name no program (pytest's ``--autocue-agent``)."""
    default_cmd: str | None = None
    """A command line for the scenarios that name no program (pytest's ``--autocue-cmd``)."""
    terminal: TerminalProfile | None = None
    speed: float = 0.0
    """Wall seconds per logical second (0: as fast as synchronisation allows)."""
    timeout: float = 60.0
    """Seconds a scenario may take; then its program's process group is killed."""
    settle: float | None = None
    """Seconds the screen must be quiet before a user or test event (None: the launch profile's:
    0.002 for ``mock``, whose progress file says when a reply and what it prints before it waits are out;
    0.08 otherwise)."""
    update_goldens: bool = False
    ci: bool = field(default_factory=ci_from_env)
    """CI mode: a screenshot with no golden fails (``golden``) instead of writing one (default: the ``CI``
    variable, ``ci_from_env``)."""
    out: Path = Path("autocue-runs")
    keep: bool = False
    """Keep every workspace (failed runs keep theirs anyway)."""
    jobs: int = 1
    agent_args: tuple[str, ...] = ()
    """Extra arguments for the agent CLI (``--agent-arg``), after its profile's."""
    llm_api: str | None = None
    """Wire protocol for a real agent CLI that speaks several (``openai``, ``anthropic``, ``openai-responses``,
    ``gemini``), instead of the scenario's ``server.llmApiStyle``."""
    match: str | None = None
    """``--match strict|loose|off``: how the mock server compares each request with the one recorded
    for its reply (None: the scenario's ``server.match``, which ``autocue record`` writes as strict)."""
    agents_files: tuple[str, ...] = ()
    """TOML/YAML files of user-defined launch profiles (``--agents-file``)."""
    via: str | None = None
    """How the program is driven: ``print`` / ``tui`` (None: by the scenario, as before) or ``acp`` (the agent's
    ACP server, the runner its client: ``autocue.runner.acp_client``)."""
    sandbox: str = "none"
    """The sandbox provider the program runs in (``--sandbox``: ``none``, ``bwrap``, ``docker``, ``podman`` or an
    ``autocue.sandboxes`` entry point; ``autocue.isolation``)."""
    sandbox_image: str | None = None
    """The container image of a container sandbox (``--sandbox-image``)."""
    flags: dict[str, str] = field(default_factory=dict)
    """How the caller spells the option of a field in messages, by field name (pytest:
    ``{"update_goldens": "--autocue-update-goldens", ...}``); see ``flag``."""

    def flag(self, name: str) -> str:
        """The option that sets field ``name``, as the user writes it: ``flags[name]``, else
        ``autocue run``'s (``update_goldens`` → ``--update-goldens``)."""
        return self.flags.get(name) or "--" + name.replace("_", "-")
