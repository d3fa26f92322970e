"""``autocue.loop``: a hat-based orchestrator loop (the system under test of ``autocue.checks``).

Public surface:

- configuration: ``load_config``, ``config_from_dict``, ``LoopConfig``, ``EventLoopSettings``,
  ``HatConfig``, ``BackendSpec``, ``LoopConfigError``;
- running: ``EventLoop`` (``await run()`` / ``run_sync()`` → ``LoopResult``), ``run_loop``,
  ``TerminationReason``;
- backends: ``MockBackend`` / ``MockResponse`` (the default), ``CommandBackend``,
  ``AgentBackend`` (the autocue agent over any ``Provider``), the ``Backend`` protocol;
- events: ``Event``, ``parse_events``, ``has_promise``, ``topic_matches``;
- sessions: ``SessionRecorder``, ``read_session``, ``parse_session``, ``Record``,
  ``SessionParseError``, ``decode_terminal``;
- errors (``autocue/loop/errors.py``): ``LoopError``, the root of ``LoopConfigError``,
  ``MockConfigError``, ``PathEscapeError``, ``SessionParseError`` and ``UnsafeFileError``.

``AgentBackend`` is imported lazily (it pulls in the agent runtime).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.lazy import lazy_exports
from autocue.loop.backend import Backend, BackendResult, Invocation
from autocue.loop.command_backend import CommandBackend
from autocue.loop.config import (
    BackendSpec,
    EventLoopSettings,
    HatConfig,
    LoopConfig,
    config_from_dict,
    load_config,
)
from autocue.loop.engine import COORDINATOR, EventLoop, LoopResult
from autocue.loop.errors import (
    LoopConfigError,
    LoopError,
    MockConfigError,
    PathEscapeError,
    SessionParseError,
    UnsafeFileError,
)
from autocue.loop.events import Event, has_promise, parse_events
from autocue.loop.mock_backend import MockBackend, MockResponse
from autocue.loop.paths import EVENTS_FILE, RUN_DIR, SCRATCHPAD, confine
from autocue.loop.recorder import SessionRecorder
from autocue.loop.session_file import Record, decode_terminal, parse_session, read_session
from autocue.loop.termination import TerminationReason
from autocue.loop.topics import topic_matches

if TYPE_CHECKING:
    from autocue.loop.agent_backend import AgentBackend

__getattr__, __dir__ = lazy_exports(__name__, {"autocue.loop.agent_backend": ["AgentBackend"]})


def run_loop(
    config: LoopConfig | dict[str, Any] | str | Path,
    prompt: str | None = None,
    **kwargs: Any,
) -> LoopResult:
    """Run a loop to the end (sync). ``config``: a ``LoopConfig``, a mapping, or a YAML path."""
    if isinstance(config, (str, Path)):
        cfg = load_config(config)
    elif isinstance(config, dict):
        cfg = config_from_dict(config)
    else:
        cfg = config
    return EventLoop(cfg, prompt=prompt, **kwargs).run_sync()


__all__ = [
    "COORDINATOR", "EVENTS_FILE", "RUN_DIR", "SCRATCHPAD", "AgentBackend", "Backend", "BackendResult",
    "BackendSpec", "CommandBackend", "Event", "EventLoop", "EventLoopSettings", "HatConfig", "Invocation",
    "LoopConfig", "LoopConfigError", "LoopError", "LoopResult", "MockBackend", "MockConfigError", "MockResponse",
    "PathEscapeError", "Record", "SessionParseError", "SessionRecorder", "TerminationReason", "UnsafeFileError",
    "config_from_dict",
    "confine", "decode_terminal", "has_promise", "load_config", "parse_events", "parse_session", "read_session",
    "run_loop", "topic_matches",
]
