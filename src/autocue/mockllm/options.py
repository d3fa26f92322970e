"""What a mock server is started with: ``ServerOptions`` and their defaults (``autocue serve``'s
options, ``MockLLMServer``'s keyword arguments). Imports nothing of the server itself, so the
command can parse its arguments and bind its socket before loading it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autocue.mockllm.journal import JOURNAL_CAP

if TYPE_CHECKING:
    from autocue.mockllm.wire.fuzz import FuzzSpec
    from autocue.script.chaos import ChaosSpec

DEFAULT_MAX_BODY = 64 * 1024 * 1024
SESSION_TTL = 900.0
"""Seconds a session is kept after its last request (``--session-ttl``; 0: no time limit)."""
MAX_SESSIONS = 1_000
"""Sessions kept at most; past it the least recently used goes first (``--max-sessions``; 0: no bound)."""
MAX_PINS = 1_000
"""Session ids or keys pinned at most (admin ``POST /_autocue/sessions/{id}/pin``): a pinned session is kept
past the TTL and the size bound, so the pins themselves are bounded; past it a new pin is refused (409)."""


@dataclass(slots=True)
class ServerOptions:
    speed: float = 0.0
    """Multiplier of scripted ``[ms, text]`` delays (0: no delay; 1: as written)."""
    strict_tools: bool = False
    """Answer 400 when the declared tools do not match the session's profile."""
    record_dir: Path | None = None
    """Where requests that match nothing are saved (None: not saved)."""
    profile: str | None = None
    """Force this tool profile for every session."""
    workspace: Path = field(default_factory=Path.cwd)
    """Root for ``fs`` / ``json`` / ``git`` assertions."""
    max_body: int = DEFAULT_MAX_BODY
    """Request bodies above this many bytes get 413."""
    journal_size: int = JOURNAL_CAP
    """Requests kept per session in its journal (0: none)."""
    admin_token: str | None = None
    """When set, admin routes (``/_autocue/...``) need it as ``Authorization: Bearer`` or
    ``X-Autocue-Admin-Token``."""
    chaos: ChaosSpec | None = None
    """Faults and latency for every session (``--chaos``; see ``autocue.mockllm.chaos``)."""
    fuzz: FuzzSpec | None = None
    """Serve every stream fuzzed (``--fuzz``; see ``autocue.mockllm.wire.fuzz``)."""
    session_ttl: float = SESSION_TTL
    """An unpinned session idle this many seconds is forgotten (0: never)."""
    max_sessions: int = MAX_SESSIONS
    """At most this many unpinned sessions are kept: a new one makes the least recently used
    unpinned one go (0: no bound)."""
    match: str | None = None
    """``--match strict|loose|off``: how a request is compared with the one recorded for its reply
    (None: as the scenario's ``server.match`` says, else ``off``)."""
    session_key: str | None = None
    """Choose a recording made under this client key for a client whose own key chose none
    (``--session-key``; see ``autocue.mockllm.choice``)."""


def server_options(*, speed: float = 0.0, strict_tools: bool = False, record_dir: str | Path | None = None,
                   profile: str | None = None, workspace: str | Path | None = None, max_body: int = DEFAULT_MAX_BODY,
                   admin_token: str | None = None, journal_size: int = JOURNAL_CAP,
                   chaos: str | ChaosSpec | None = None, fuzz: str | int | FuzzSpec | None = None,
                   session_ttl: float = SESSION_TTL, max_sessions: int = MAX_SESSIONS,
                   session_key: str | None = None, match: str | None = None) -> ServerOptions:
    """``ServerOptions`` from ``MockLLMServer``'s keyword arguments (a chaos or fuzz spec may be
    its text; a negative TTL or bound is 0): the server and the in-process transport take the same."""
    if isinstance(chaos, str):
        from autocue.script.chaos import parse_chaos

        chaos = parse_chaos(chaos)
    if isinstance(fuzz, (str, int)):
        from autocue.mockllm.wire.fuzz import parse_fuzz

        fuzz = parse_fuzz(str(fuzz))
    options = ServerOptions(speed=speed, strict_tools=strict_tools,
                            record_dir=Path(record_dir) if record_dir is not None else None, profile=profile,
                            max_body=max_body, admin_token=admin_token or None, journal_size=journal_size,
                            chaos=chaos, fuzz=fuzz, session_ttl=max(0.0, session_ttl),
                            max_sessions=max(0, max_sessions), session_key=session_key or None,
                            match=match)
    if workspace is not None:
        options.workspace = Path(workspace)
    return options
