"""autocue's pytest plugin (the one ``pytest11`` entry point): it costs nothing until a test uses it.

At pytest start this module registers the ``--autocue-*`` options and the ``autocue_scenarios``
ini key, the ``autocue_session`` fixture and a few hooks, and imports nothing of autocue but the
package root: the harness, the viewer and the scenario runner load on first use.

- the harness (``autocue.testing.pytest_plugin``): ``autocue_session(**options)`` builds a
  ``TestSession`` and disposes it at teardown; a failing test's report gains an "autocue
  transcript" section per ``TestSession`` it created (fixture or not); ``--autocue-record`` sets
  the record mode of ``create_test_session(record=...)``. ``autocue_llm`` is a ``MockLLM`` (the mock
  LLM in process) for the scenario of ``@pytest.mark.autocue_llm(source, **options)``. The sessions a test created are
  ``sessions_of(item)``: the ones the fixture built, and every other one once
  ``autocue.testing`` was imported when the test started (a test module that imports it at its
  top always has).
- the viewer (``autocue.view.pytest_plugin``): a failing test's report gains an "autocue view"
  section with the path of its sessions' viewer page; ``--autocue-html DIR`` writes every test's.
- scenario files (``autocue.runner.pytest_plugin``): with ``autocue_scenarios = GLOB ...`` (or
  ``--autocue-scenarios GLOB``), each matching file's scenarios are collected as test items; the
  terminal summary counts their goldens.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from autocue.runner.pytest_plugin import ScenarioFile
    from autocue.testing.mock_llm import MockLLM
    from autocue.testing.session import TestSession

RECORD_MODES = ("all", "none", "new_episodes")
"""``autocue.testing.recorded.RECORD_MODES``, written out so the options need no import (a test checks both)."""
SCENARIO_SUFFIXES = (".yaml", ".yml")
"""``autocue.scenario.SCENARIO_SUFFIXES``, likewise."""
COVERAGE_PATH = "autocue-coverage.json"
"""``autocue.suite_coverage.DEFAULT_PATH``, likewise."""
GOLDENS = "autocue_goldens"
"""The ``user_properties`` name of a scenario item's golden statuses (``autocue.runner.pytest_plugin`` sets it);
they reach the xdist controller too."""

_PARTS = "autocue_coverage_parts"
_SESSIONS = pytest.StashKey[list["TestSession"]]()
_LLMS = pytest.StashKey[list["MockLLM"]]()
_LLM_SHOWN = pytest.StashKey[bool]()


def sessions_of(item: pytest.Item) -> list[TestSession]:
    """The ``TestSession``s the test ``item`` created (empty outside a test run)."""
    return item.stash.get(_SESSIONS, [])


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autocue")
    group.addoption(
        "--autocue-record", choices=RECORD_MODES, default=None,
        help="record mode of create_test_session(record=...): new_episodes (default: replay, record what is "
             "missing), none (replay only), all (record again)")
    group.addoption(
        "--autocue-html", metavar="DIR", default=None,
        help="write the autocue viewer page of every test's sessions into DIR (failing tests always get one)")
    group = parser.getgroup("autocue scenarios")
    group.addoption("--autocue-scenarios", action="append", default=[], metavar="GLOB",
                    help="collect scenario files matching GLOB (relative to the rootdir) as tests")
    group.addoption("--autocue-agent", default=None, metavar="NAME",
                    help="launch profile for the scenarios that name no program (no ah.cmd or agent:)")
    group.addoption("--autocue-cmd", default=None, metavar="COMMAND",
                    help="command line for the scenarios that name no program (no ah.cmd or agent:)")
    group.addoption("--autocue-agent-override", default=None, metavar="NAME",
                    help="launch profile for every scenario, over its own ah.cmd or agent:")
    group.addoption("--autocue-cmd-override", default=None, metavar="COMMAND",
                    help="command line for every scenario, over its own ah.cmd or agent:")
    group.addoption("--autocue-out", default=None, metavar="DIR", help="screenshots and recordings (default: "
                    "autocue-runs under the rootdir)")
    group.addoption("--autocue-update-goldens", action="store_true", help="rewrite screenshot goldens")
    group.addoption("--autocue-ci", action=argparse.BooleanOptionalAction, default=None,
                    help="CI mode: a screenshot with no golden fails instead of writing one (default: on when the "
                         "CI variable is set to a true value)")
    group.addoption("--autocue-timeout", type=float, default=60.0, help="seconds per scenario (default 60)")
    group.addoption("--autocue-sandbox", default="none", metavar="NAME",
                    help="sandbox provider of the program under test: none, bwrap, docker, podman or an "
                         "autocue.sandboxes entry point (see docs/scale.md)")
    group.addoption("--autocue-sandbox-image", default=None, metavar="IMAGE",
                    help="container image of --autocue-sandbox docker|podman")
    parser.addini("autocue_scenarios", "globs of scenario files to collect as tests", type="args", default=[])
    group = parser.getgroup("autocue coverage")
    group.addoption("--autocue-coverage", nargs="?", const=COVERAGE_PATH, default=None, metavar="PATH",
                    help="print what the suite exercised (scripted replies served, declared tools called, extension "
                         f"hooks fired, UI dialogs, tool profiles, timeline events) and write it as JSON to PATH "
                         f"(default {COVERAGE_PATH}); see 'Coverage' in docs/testing.md")
    group.addoption("--autocue-coverage-fail-under", type=float, default=None, metavar="N",
                    help="fail the run when the coverage (replies served + declared tools called, in percent of "
                         "scripted replies + declared tools) is under N; implies --autocue-coverage")


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("--autocue-record", None)
    if mode is not None:
        from autocue.testing.recorded import set_default_record_mode

        set_default_record_mode(mode)
    config.pluginmanager.register(_GoldenTally(), "autocue-golden-tally")
    minimum = config.getoption("--autocue-coverage-fail-under", None)
    path = config.getoption("--autocue-coverage", None) or (COVERAGE_PATH if minimum is not None else None)
    if path is not None:
        config.pluginmanager.register(_Coverage(config, path, minimum), "autocue-coverage")
    config.addinivalue_line("markers", "autocue_llm(source, **options): the scenario (a path, a Script, a list) "
                                       "and MockLLM options of the autocue_llm fixture")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    if file_path.suffix not in SCENARIO_SUFFIXES:
        return None
    globs = list(parent.config.getoption("--autocue-scenarios")) + list(parent.config.getini("autocue_scenarios"))
    if not globs:
        return None
    try:
        rel = file_path.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        rel = file_path.as_posix()
    if not any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(str(file_path), g) for g in globs):
        return None
    from autocue.runner.pytest_plugin import ScenarioFile

    return ScenarioFile.from_parent(parent, path=file_path)  # type: ignore[no-any-return]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
    if "autocue.testing.session" not in sys.modules:  # no TestSession yet: the fixture adds the ones it builds
        item.stash[_SESSIONS] = []
        yield
        return
    from autocue.testing.session import track_sessions

    with track_sessions() as sessions:
        item.stash[_SESSIONS] = sessions
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    llms = item.stash.get(_LLMS, None)
    if llms and report.failed and report.when == "call":
        from autocue.testing.pytest_plugin import llm_failure_first

        item.stash[_LLM_SHOWN] = llm_failure_first(report, llms)
    sessions = sessions_of(item)
    if not sessions:
        return
    if report.failed:
        from autocue.testing.pytest_plugin import transcript_sections

        report.sections.extend(transcript_sections(sessions))
    every = item.config.getoption("--autocue-html", None)
    if report.failed or (every and report.when == "call"):
        from autocue.view.pytest_plugin import write_pages

        folder = Path(every) if every else None
        report.sections.append(("autocue view", write_pages(item, sessions, folder)))


@pytest.fixture
def autocue_session(request: pytest.FixtureRequest) -> Iterator[Callable[..., TestSession]]:
    """A factory: ``t = autocue_session(extensions=[...], mock_tools={...})``; disposed at teardown."""
    from autocue.testing.pytest_plugin import session_factory

    yield from session_factory(request.node.stash.setdefault(_SESSIONS, []))


@pytest.fixture
def autocue_llm(request: pytest.FixtureRequest) -> Iterator[MockLLM]:
    """A ``MockLLM`` (the mock LLM in process) playing the scenario of ``@pytest.mark.autocue_llm(source,
    **options)`` or of an indirect parametrisation; a failing test's report starts with the first
    request it could not answer and its journal, and a passing test that left one unanswered fails
    at teardown."""
    from autocue.testing.pytest_plugin import mock_llm

    node = request.node
    yield from mock_llm(request, node.stash.setdefault(_LLMS, []), lambda: node.stash.get(_LLM_SHOWN, False))


class _GoldenTally:
    """Counts the goldens of the scenario items that ran, for the terminal summary."""

    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.items = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == GOLDENS and isinstance(value, list):
                self.items += 1
                self.statuses.extend(str(v) for v in value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.items:
            from autocue.runner.report import golden_counts, goldens_line

            terminalreporter.write_line(f"autocue {goldens_line(golden_counts(self.statuses))}")


class _Coverage:
    """``--autocue-coverage``: turns the collector on (xdist workers inherit it through the environment),
    writes each worker's part at its end, and on the controller merges the parts, writes the JSON,
    prints the summary and applies ``--autocue-coverage-fail-under``."""

    def __init__(self, config: pytest.Config, path: str, minimum: float | None) -> None:
        from autocue import suite_coverage

        self.worker = hasattr(config, "workerinput")
        self.path = Path(path) if Path(path).is_absolute() else config.invocation_params.dir / path
        self.minimum = minimum
        parts = getattr(config, "workerinput", {}).get(_PARTS)  # an xdist worker: the controller's folder
        self.collector = suite_coverage.enable(parts, fresh=not self.worker)
        self.lines: list[str] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist: each worker writes its part into the controller's folder (remote ones too)."""
        node.workerinput[_PARTS] = str(self.collector.folder)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        import shutil

        from autocue import suite_coverage

        if self.worker:
            self.collector.write_part()
            return
        from autocue.scenario.events import kind_keys

        self.collector.written = True  # the controller's own data goes into the report, not into a part
        report = suite_coverage.collect(kind_keys())
        shutil.rmtree(self.collector.folder, ignore_errors=True)
        suite_coverage.disable()
        suite_coverage.write_report(report, self.path)
        self.lines = [*suite_coverage.summary(report), f"autocue coverage written to {self.path}"]
        failed = suite_coverage.fails_under(report, self.minimum)
        if failed is not None:
            self.lines.append(failed)
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.section("autocue coverage")
            for line in self.lines:
                terminalreporter.write_line(line)
