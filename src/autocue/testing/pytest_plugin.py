"""pytest plugin (entry point ``pytest11``): the ``autocue_session`` fixture and failure transcripts.

``autocue_session(**options)`` builds a ``TestSession`` with ``create_test_session``'s options and
disposes every session it built at teardown. When a test fails, the report gains a section
"autocue transcript" for each ``TestSession`` the test created (fixture or not): turns, tool
calls with their inputs, results, blocked calls and UI calls. ``sessions_of(item)`` gives the
sessions a test created to other plugins (the viewer's ``autocue.view.pytest_plugin`` writes
their pages). ``--autocue-record=all|none|new_episodes`` sets the record mode of
``create_test_session(record=...)`` (see ``autocue.testing.recorded``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from autocue.testing.recorded import RECORD_MODES, set_default_record_mode
from autocue.testing.session import TestSession, create_test_session, track_sessions

_SESSIONS = pytest.StashKey[list[TestSession]]()


def sessions_of(item: pytest.Item) -> list[TestSession]:
    """The ``TestSession``s the test ``item`` created (empty outside a test run)."""
    return item.stash.get(_SESSIONS, [])


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("autocue").addoption(
        "--autocue-record", choices=RECORD_MODES, default=None,
        help="record mode of create_test_session(record=...): new_episodes (default: replay, record what is "
             "missing), none (replay only), all (record again)")


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("--autocue-record", None)
    if mode is not None:
        set_default_record_mode(mode)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    with track_sessions() as sessions:
        item.stash[_SESSIONS] = sessions
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    sessions = sessions_of(item)
    if not report.failed:
        return
    for i, t in enumerate(sessions):
        text = t.transcript()
        if text:
            title = "autocue transcript" + (f" (session {i + 1})" if i else "")
            report.sections.append((title, text))


@pytest.fixture
def autocue_session() -> Iterator[Callable[..., TestSession]]:
    """A factory: ``t = autocue_session(extensions=[...], mock_tools={...})``; disposed at teardown."""
    made: list[TestSession] = []

    def factory(**options: Any) -> TestSession:
        t = create_test_session(**options)
        made.append(t)
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
