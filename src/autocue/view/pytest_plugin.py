"""pytest plugin (entry point ``pytest11`` ``autocue-view``): viewer pages of the harness sessions.

When a test fails, the report gains a section "autocue view" with the path of each of its
``TestSession``s' viewer page, written under ``.autocue/view`` of the rootdir;
``--autocue-html DIR`` writes the pages of every test into DIR. The sessions are the ones
the harness plugin (``autocue.testing.pytest_plugin``) tracked for the test.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from autocue.testing.pytest_plugin import sessions_of
from autocue.view.pytest_pages import DEFAULT_DIR, write_test_pages


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("autocue").addoption(
        "--autocue-html", metavar="DIR", default=None,
        help="write the autocue viewer page of every test's sessions into DIR (failing tests always get one)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    sessions = sessions_of(item)
    every = item.config.getoption("--autocue-html", None)
    if sessions and (report.failed or (every and report.when == "call")):
        folder = Path(every) if every else item.config.rootpath / DEFAULT_DIR
        pages = write_test_pages(item.nodeid, [t.session.session_manager for t in sessions], folder)
        report.sections.append(("autocue view", "\n".join(str(p) for p in pages)))
