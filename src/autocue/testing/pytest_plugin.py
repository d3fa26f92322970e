"""The harness's part of autocue's pytest plugin (``autocue.pytest_plugin``, which imports this on first use).

``session_factory`` is the body of the ``autocue_session`` fixture: ``autocue_session(**options)``
builds a ``TestSession`` with ``create_test_session``'s options and disposes every session it built
at teardown. ``mock_llm`` is the body of the ``autocue_llm`` fixture (a ``MockLLM``), and
``llm_failure_first`` puts what its scenario could not answer before a failing test's traceback.
``transcript_sections`` gives a failing test's report its "autocue transcript"
section for each ``TestSession`` the test created: turns, tool calls with their inputs, results,
blocked calls and UI calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from autocue.testing.mock_llm.mock import MockLLM, resolve
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


LLM_USAGE = ("the autocue_llm fixture needs a scenario: mark the test with @pytest.mark.autocue_llm(\"scenario.yaml\", "
             "**options) or parametrize it indirectly: @pytest.mark.parametrize(\"autocue_llm\", [\"a.yaml\"], "
             "indirect=True)")


def mock_llm(request: pytest.FixtureRequest, tracked: list[Any], shown: Callable[[], bool]) -> Iterator[MockLLM]:
    """Yield the test's ``MockLLM``; at teardown, fail a test that passed although the scenario
    could not answer one of its requests (``shown()``: the failure already said so)."""
    source: Any
    options: dict[str, Any] = {}
    marker = request.node.get_closest_marker("autocue_llm")
    if hasattr(request, "param"):
        source = request.param
        if isinstance(source, dict):
            options = dict(source)
            source = options.pop("source", ())
    elif marker is not None and (marker.args or marker.kwargs):
        source = marker.args[0] if marker.args else ()
        options = dict(marker.kwargs)
    else:
        pytest.fail(LLM_USAGE, pytrace=False)
    llm = MockLLM(resolve(source, request.path.parent), **options)
    tracked.append(llm)
    with llm:
        yield llm
    text = None if shown() else llm.failure()
    if text is not None:
        pytest.fail(text, pytrace=False)


def llm_failure_first(report: pytest.TestReport, llms: list[MockLLM]) -> bool:
    """Put the first request a ``MockLLM`` of the test could not answer, with its journal, before the
    report's traceback (a framework's error about the answer says less); True when there was one."""
    texts = [t for t in (llm.failure() for llm in llms) if t is not None]
    if not texts:
        return False
    report.longrepr = "\n\n".join(texts) + "\n\n" + str(report.longrepr)
    return True
