"""The embedded mock LLM server of a runner process, shared by every run.

One ``MockLLMServer`` is started on first use and reused by every scenario run of the
process (thread-safe). Each run registers its scenario under its own name (``--2`` added while
another run of it is live) with a session key made from it, so runs never share a cursor and
what the program shows of them is the same from run to run (a golden of an error screen); the
program under test is pointed at ``base_url_for(run)`` (the ``/s/KEY/scenario/NAME`` prefix)
with the key as API key. The server's messages name the scenario as written, with its file.

The scenario's ``assert`` steps are removed from what the server plays: under the executor
they are evaluated at their timeline position (the server cannot see the terminal).
"""

from __future__ import annotations

import atexit
import itertools
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autocue.mockllm.server import MockLLMServer
from autocue.mockllm.session import Playable
from autocue.scenario import Scenario
from autocue.script.model import Script, Turn

_lock = threading.Lock()
_registering = threading.Lock()
_server: MockLLMServer | None = None


def shared_server() -> MockLLMServer:
    """The process's server (started on first call, stopped at exit)."""
    global _server
    with _lock:
        if _server is None:
            _server = MockLLMServer().start()
            atexit.register(_server.stop)
        return _server


@dataclass(frozen=True, slots=True)
class LlmRun:
    """A scenario registered on the server for one run."""

    server: MockLLMServer
    key: str
    scenario: str
    script: Script

    @property
    def base_url(self) -> str:
        return self.server.url_for(session=self.key, scenario=self.scenario)

    @property
    def openai_base_url(self) -> str:
        return self.server.url_for(session=self.key, scenario=self.scenario, openai=True)

    def served(self) -> int:
        """How many scripted replies the program has been sent so far."""
        st = self.status()
        return int(st["consumed"]) if st else 0

    def last_served_at(self) -> float | None:
        """When the latest scripted reply was taken, on the ``time.monotonic()`` clock (None: not known)."""
        st = self.status()
        taken = [e for e in (st.get("journal") if st else None) or () if e.get("reply") is not None]
        if not taken:
            return None
        return time.monotonic() - (time.time() - float(taken[-1]["time"]))

    def status(self) -> dict[str, Any] | None:
        found = self.server.state.session_status(self.key)
        return found[0] if found else None

    def release(self) -> None:
        state = self.server.state
        state.reset(self.key)
        with state._lock:
            state.playables.pop(self.scenario, None)


def without_checks(script: Script) -> Script:
    return replace(script, turns=[Turn(t.prompt, list(t.steps), [], t.pos) for t in script.turns])


def register(scenario: Scenario, script: Script, *, tool_profile: str | None = None) -> LlmRun:
    """Register ``script`` for one run; with ``tool_profile`` the run's session maps tool calls through
    that profile from its first request (a launch profile knows its CLI: no detection)."""
    server = shared_server()
    played = without_checks(script)
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", scenario.name)[:60] or "scenario"
    mapped = f"the launch profile's tool profile {tool_profile!r} maps no tool to it: " if tool_profile else ""
    hint = (f"{mapped}fix the tool's name in the scenario, or run the agent with a launch profile whose `tool_profile` "
            "maps it (a profile of your own: --agents-file FILE, see docs/agents.md)")
    with _registering:  # the scenario's own name, stable from run to run; a second live run of it gets --2
        name = base
        for n in itertools.count(2):
            if name not in server.state.playables:
                break
            name = f"{base}--{n}"
        key = f"run-{name}"
        playable = Playable(played, name=name, label=f"{scenario.name!r} ({Path(scenario.file).name})", tool_hint=hint)
        server.state.add(playable)
    if tool_profile is not None:
        from autocue.mockllm.profiles import get_profile
        from autocue.mockllm.session import Session

        state = server.state
        session = Session(f"{key}@{name}", key, playable, "launch profile", journal_size=state.options.journal_size)
        session.profile = get_profile(tool_profile)
        session.profile_source, session.profile_resolved = "launch profile", True
        session.last_used = time.monotonic()  # fresh: the server expires sessions idle past its TTL
        with state._lock:
            state.sessions[session.id] = session
    return LlmRun(server, key, name, played)
