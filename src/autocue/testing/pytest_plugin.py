"""The harness's part of autocue's pytest plugin (``autocue.pytest_plugin``, which imports this on first use).

``session_factory`` is the body of the ``autocue_session`` fixture: ``autocue_session(**options)``
builds a ``TestSession`` with ``create_test_session``'s options and disposes every session it built
at teardown. ``transcript_sections`` gives a failing test's report its "autocue transcript"
section for each ``TestSession`` the test created: turns, tool calls with their inputs, results,
blocked calls and UI calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from autocue.testing.session import TestSession, create_test_session


def session_factory(tracked: list[TestSession]) -> Iterator[Callable[..., TestSession]]:
    """Yield a factory of ``TestSession``s (each also added to ``tracked``, the test's); dispose them after."""
    made: list[TestSession] = []

    def factory(**options: Any) -> TestSession:
        t = create_test_session(**options)
        made.append(t)
        if not any(s is t for s in tracked):  # tracked already when the harness was loaded as the test began
            tracked.append(t)
        return t

    yield factory
    errors: list[BaseException] = []
    for t in made:
        try:
            t.dispose_quietly()
        except Exception as e:  # keep disposing the others
            errors.append(e)
    if errors:
        raise errors[0]


def transcript_sections(sessions: list[TestSession]) -> list[tuple[str, str]]:
    """The report sections of a failing test: one "autocue transcript" per session that did something."""
    sections = []
    for i, t in enumerate(sessions):
        text = t.transcript()
        if text:
            sections.append(("autocue transcript" + (f" (session {i + 1})" if i else ""), text))
    return sections
