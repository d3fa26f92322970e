"""A CLI's launch profile: what the runner needs to start it against the mock LLM server, as data.

``AgentProfile`` declares the binary, its print-mode and TUI command lines, the env and the
config files that point it at the embedded mock server, per wire protocol (``server.llmApiStyle``),
and how its TUI behaves. The placeholders it may use and how a run is prepared from it are the
runner's (``autocue.runner.agents.base``); built-in profiles sit in each CLI's catalogue file
(``autocue.catalog.clis``), user-defined ones come from TOML or YAML (``autocue.runner.agents.user``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autocue.catalog.apis import agent_aliases

API_ALIASES = agent_aliases()
"""Other names of the keys of ``AgentProfile.apis`` (``server.llmApiStyle`` / ``--llm-api`` values)."""


@dataclass(frozen=True, slots=True)
class AgentProfile:
    name: str
    binary: str
    """Executable name, looked up in ``$AUTOCUE_AGENTS_DIR/bin`` then ``PATH``."""
    print_args: tuple[str, ...]
    """Arguments of print (one-shot) mode, after the binary; ``{prompt}`` or ``{prompt_words}`` carry the prompt."""
    tui_args: tuple[str, ...] | None = None
    """Arguments of interactive mode (None: the CLI has no TUI); the prompt is typed, not passed."""
    apis: dict[str, dict[str, str]] = field(default_factory=lambda: {"openai": {}})
    """Wire protocols the CLI speaks, keyed by ``server.llmApiStyle``, each with its extra placeholders;
    the first is used when the scenario names none the CLI speaks."""
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """Files written before the run, relative to ``{home}`` (templates)."""
    dirs: tuple[str, ...] = ()
    """Directories created under ``{home}``."""
    tool_profile: str | None = None
    """The server's tool profile for this CLI (how ``writeFile``, ``runCmd``, ... become its tools)."""
    package: str = ""
    installer: str = "npm"
    version: str = ""
    """The pinned version ``autocue agents install`` installs."""
    verified: tuple[str, ...] = ()
    """CLI versions this profile was checked with."""
    version_args: tuple[str, ...] = ("--version",)
    side_requests: tuple[str, ...] = ()
    """Requests the CLI sends besides the conversation, answered by the server without a scripted step."""
    quit_input: str = "<ctrl-c><ctrl-c>"
    """What quits its TUI cleanly: typed for a ``userInputs`` text that is exactly ``<quit>``."""
    ready: str = ""
    """Text on its TUI's screen once the input box takes a prompt (empty: a quiet screen is enough)."""
    key_gap: float = 0.2
    """Least seconds between typed text and the key after it (Codex takes an Enter within 120 ms of a
    typing burst as part of a paste; Gemini CLI reads text + CR in one read as two lines)."""
    settle: float = 0.3
    """Seconds of quiet screen the executor waits for (TUIs repaint spinners and cursors)."""
    session_logs: str = ""
    """Glob (relative to ``{home}``, ``**`` allowed) of the CLI's session logs: after a run the tool calls it
    logged as failed are reported (``autocue.runner.diagnose.tool_failures``; the formats read: Codex's rollout
    JSONL, Claude Code's transcript JSONL)."""
    notes: str = ""
    in_sandbox: tuple[tuple[str, str], ...] = ()
    """Arguments replaced (``(old, new)`` pairs) when the run is in an autocue sandbox (``--sandbox`` other than
    ``none``): a CLI whose own sandbox nests badly in autocue's turns it off and relies on autocue's (Codex)."""
    image: str = ""
    """A container image with this CLI installed, for ``--sandbox docker`` / ``podman`` without ``--sandbox-image``."""
    source: str = "built-in"

    def api_for(self, style: str) -> str:
        """The key of ``apis`` used for a scenario's ``server.llmApiStyle``."""
        style = agent_aliases().get(style, style)  # read now: a wire API registered later counts
        return style if style in self.apis else next(iter(self.apis))
