"""The typed scenario model: what every accepted YAML form normalizes into.

``Scenario`` holds the top-level blocks (``name``, ``tags``, ``terminal_ref``, ``compat``,
``initial_prompt``, ``repo``, ``ah`` — the command under test —, ``server``, ``timeline``,
``expect``, ``runner``: ``agent`` and ``masks``) and the ``warnings`` the loader collected. The
timeline event classes live in ``timeline.py`` and are re-exported here.

``Scenario.compile()`` turns it into the ``Script`` every back-end plays (see ``compile.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from autocue.scenario.compile import compile_scenario
from autocue.scenario.errors import Pos, ScenarioWarning
from autocue.scenario.timeline import *  # noqa: F403  (re-exported: the model is one import away)
from autocue.scenario.timeline import LlmResponse, TimelineEvent
from autocue.scenario.timeline import __all__ as _timeline_names
from autocue.script.model import Script

# ---------------------------------------------------------------------------- top-level blocks


@dataclass(slots=True)
class Compat:
    allow_inline_terminal: bool | None = None
    allow_type_steps: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class RepoFile:
    path: str
    contents: str | bytes
    """Text, or bytes when written as ``{base64: ...}``."""


@dataclass(slots=True)
class Repo:
    init: bool = False
    branch: str | None = None
    dir: str | None = None
    files: list[RepoFile] = field(default_factory=list)


@dataclass(slots=True)
class CommandSpec:
    """The command under test (the ``ah`` block): command, CLI tokens verbatim, extra env."""

    cmd: str | None = None
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class EmbeddingsSpec:
    """``server.embeddings``: what the mock server's embeddings endpoints answer for exact input texts."""

    dimensions: int | None = None
    """The length of every vector the scenario's sessions get when a request names none (the
    scripted vectors' length)."""
    vectors: dict[str, list[float] | str] = field(default_factory=dict)
    """Per input text: its vector, or (written ``{like: other text}``) the text whose vector it shares
    (a scripted one already resolved to its vector; another text's hash vector at the asked length)."""


@dataclass(slots=True)
class ServerSpec:
    mode: Literal["none", "mock", "real"] = "none"
    llm_api_style: str = "openai"
    coalesce_thinking_with_tool_use: bool = True
    tools_profile: str | None = None
    embeddings: EmbeddingsSpec | None = None
    match: str | None = None
    """How replay compares each request with the recorded one (``strict``, ``loose``, ``off``; None:
    the server's ``--match``, else ``off``): ``autocue.mockllm.fingerprint``."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Seed objects for mock server endpoints, kept as written."""


@dataclass(slots=True)
class Artifact:
    """``expect.artifacts[]``: something matching ``pattern`` (a path or glob in the workspace)
    must exist at the end of the run, of ``type`` (``vocab.ARTIFACT_TYPES``: any, file, dir)."""

    type: str
    pattern: str


@dataclass(slots=True)
class Expect:
    exit_code: int | None = None
    artifacts: list[Artifact] = field(default_factory=list)
    acp: dict[str, Any] | None = None
    """Checks of an ACP run (``autocue run --via acp``) on its whole session: ``autocue.runner.acp_client_checks``."""
    extra: dict[str, Any] = field(default_factory=dict)
    egress: str | None = None
    """``none``: the run fails when the program tried to reach any host but the mock server (``--sandbox``)."""
    pos: Pos | None = None


@dataclass(frozen=True, slots=True)
class Mask:
    """A ``masks:`` rule: ``pattern``'s matches are replaced with ``replace`` on a screen before it is
    compared with its golden."""

    pattern: re.Pattern[str]
    replace: str
    pos: Pos | None = None

    def apply(self, text: str) -> str:
        return self.pattern.sub(self.replace, text)


@dataclass(slots=True)
class RunnerSpec:
    """The keys ``autocue run`` reads: ``agent:`` (a launch profile, used when neither ``--cmd``,
    ``--agent`` nor ``ah`` names the program) and ``masks:`` (screen masks, in order)."""

    agent: str | None = None
    masks: list[Mask] = field(default_factory=list)


@dataclass(slots=True)
class Scenario:
    name: str
    pos: Pos
    timeline: list[TimelineEvent] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    description: str | None = None
    terminal_ref: str | None = None
    compat: Compat = field(default_factory=Compat)
    initial_prompt: str | None = None
    repo: Repo | None = None
    ah: CommandSpec | None = None
    server: ServerSpec = field(default_factory=ServerSpec)
    expect: Expect | None = None
    acp: dict[str, Any] | None = None
    runner: RunnerSpec = field(default_factory=RunnerSpec)
    warnings: list[ScenarioWarning] = field(default_factory=list)

    @property
    def file(self) -> str:
        return self.pos.file

    @property
    def command(self) -> CommandSpec | None:
        """The command under test (``ah`` block)."""
        return self.ah

    def responses(self) -> list[LlmResponse]:
        return [e for e in self.timeline if isinstance(e, LlmResponse)]

    def compile(self) -> Script:
        """The ``Script`` this scenario plays (turns, replies, errors, checks); see ``compile.py``."""
        return compile_scenario(self)


__all__ = [
    *_timeline_names, "Artifact", "CommandSpec", "Compat", "Expect", "Mask", "Repo", "RepoFile", "RunnerSpec",
    "Scenario", "ServerSpec",
]
