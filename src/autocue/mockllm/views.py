"""What a test reads of a mock LLM and asks of it, over its ``MockState``: sessions, the request
journal, resets, pins, more scenarios, ``assert_all_consumed``. Shared by the server
(``MockLLMServer``, on a socket) and the in-process transport (``autocue.testing.MockLLM``), so
both answer the same way."""

from __future__ import annotations

from typing import Any

from autocue.mockllm.sources import Source
from autocue.mockllm.state import MockState


class StateViews:
    """The helpers of an object with a ``state`` and a ``base_url``."""

    state: MockState

    @property
    def base_url(self) -> str:
        raise NotImplementedError

    def url_for(self, *, session: str | None = None, scenario: str | None = None, openai: bool = False) -> str:
        """A base URL with ``/s/{session}`` and ``/scenario/{name}`` prefixes."""
        url = self.base_url
        if session:
            url += f"/s/{session}"
        if scenario:
            url += f"/scenario/{scenario}"
        return url + ("/v1" if openai else "")

    def sessions(self) -> list[dict[str, Any]]:
        """Status of every session (consumed/remaining, assertion results, errors)."""
        return self.state.session_status()

    def session(self, sid: str = "default") -> dict[str, Any]:
        found = self.state.session_status(sid)
        if not found:
            raise KeyError(self.state.no_session(sid))
        return found[0]

    def requests(self, sid: str = "default") -> list[dict[str, Any]]:
        """The request journal of session ``sid`` (id or key), bodies included, oldest first."""
        found = self.state.session_requests(sid)
        if not found:
            raise KeyError(self.state.no_session(sid))
        return [r for f in found for r in f["requests"]]

    def reset(self, sid: str | None = None) -> int:
        return self.state.reset(sid)

    def pin(self, sid: str, pinned: bool = True) -> int:
        """Keep session ``sid`` (id or key, started or not) past the TTL and the size bound."""
        return self.state.pin(sid, pinned)

    def load(self, source: Source) -> list[str]:
        return self.state.add(source)

    def assert_all_consumed(self) -> None:
        """Raise ``AssertionError`` unless some session started and every session played its
        whole script without errors."""
        __tracebackhide__ = True  # pytest shows the test's line and the problems, not this frame
        problems: list[str] = []
        sessions = self.sessions()
        if not sessions and self.state.playables:
            problems.append(f"no session started: nothing called the server at {self.base_url} (loaded: "
                            f"{', '.join(self.state.playables)})")
        for s in sessions:
            if s["remaining"]:
                problems.append(f"session {s['session']!r} left {s['remaining']} of {s['total']} replies of "
                                f"{s['scenario']!r} unplayed (next: {s['next']})")
            problems.extend(f"session {s['session']!r}: {e}" for e in s["errors"])
        if problems:
            raise AssertionError("\n".join(problems))
