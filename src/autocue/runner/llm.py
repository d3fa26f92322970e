"""The embedded mock LLM server of a runner process, shared by every run.

One ``MockLLMServer`` is started on first use and reused by every scenario run of the
process (thread-safe). Each run registers its scenario (``MockState.open_run``, whose ``RunHandle``
the executor reads: replies served, when, what is left) under its own name (``--2`` added while
another run of it is live) with a session key made from it, so runs never share a cursor and
what the program shows of them is the same from run to run (a golden of an error screen); the
program under test is pointed at ``base_url_for(run)`` (the ``/s/KEY/scenario/NAME`` prefix)
with the key as API key. The server's messages name the scenario as written, with its file.

The scenario's ``assert`` steps are removed from what the server plays: under the executor
they are evaluated at their timeline position (the server cannot see the terminal).
"""

from __future__ import annotations

import atexit
import re
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from autocue.mockllm.server import MockLLMServer
from autocue.mockllm.state import RunHandle
from autocue.scenario import Scenario
from autocue.script.model import Script, Turn

_lock = threading.Lock()
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
    """A scenario registered on the server for one run: the URLs the program is given, and the run's
    handle on the server (``RunHandle``: what was served, when, what is left)."""

    server: MockLLMServer
    handle: RunHandle
    script: Script

    @property
    def key(self) -> str:
        return self.handle.key

    @property
    def scenario(self) -> str:
        return self.handle.name

    @property
    def base_url(self) -> str:
        return self.server.url_for(session=self.key, scenario=self.scenario)

    @property
    def openai_base_url(self) -> str:
        return self.server.url_for(session=self.key, scenario=self.scenario, openai=True)

    def release(self) -> None:
        self.handle.close()


def without_checks(script: Script) -> Script:
    return replace(script, turns=[Turn(t.prompt, list(t.steps), [], t.pos) for t in script.turns])


def register(scenario: Scenario, script: Script, *, tool_profile: str | None = None,
             match: str | None = None) -> LlmRun:
    """Register ``script`` for one run; with ``tool_profile`` the run's session maps tool calls through
    that profile from its first request (a launch profile knows its CLI: no detection)."""
    server = shared_server()
    played = without_checks(script)
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", scenario.name)[:60] or "scenario"
    mapped = f"the launch profile's tool profile {tool_profile!r} maps no tool to it: " if tool_profile else ""
    hint = (f"{mapped}fix the tool's name in the scenario, or run the agent with a launch profile whose `tool_profile` "
            "maps it (a profile of your own: --agents-file FILE, see docs/agents.md)")
    # the scenario's own name, stable from run to run; a second live run of it gets --2
    handle = server.state.open_run(base, played, label=f"{scenario.name!r} ({Path(scenario.file).name})",
                                   tool_hint=hint, profile=tool_profile, match=match or scenario.server.match)
    return LlmRun(server, handle, played)
