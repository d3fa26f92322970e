"""pytest plugin (entry point ``pytest11``): scenario files as test items.

With ``autocue_scenarios = GLOB ...`` in the pytest ini (or ``--autocue-scenarios GLOB``),
each matching file's scenarios are collected as items (id = scenario name, tags as markers)
and run through the executor with the scenario's own program; ``--autocue-agent NAME`` /
``--autocue-cmd 'COMMAND'`` run the scenarios that name none, ``--autocue-agent-override NAME`` /
``--autocue-cmd-override 'COMMAND'`` run every scenario. Messages name these options (``PYTEST_FLAGS``),
not ``autocue run``'s. A failure shows each failure with its timeline position, the
golden diff, the last screen and the transcript. Works under pytest-xdist (each worker has its
own embedded server). ``--autocue-out DIR`` (default ``autocue-runs`` under the rootdir),
``--autocue-update-goldens`` and ``--autocue-ci`` / ``--no-autocue-ci`` (default: the ``CI``
variable) are the ``autocue run`` options ``--out``, ``--update-goldens`` and ``--ci``; the
terminal summary counts the goldens written, compared and failed.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autocue.errors import AutocueError
from autocue.runner.errors import ScenarioFailed as ScenarioFailed
from autocue.runner.options import RunOptions, ci_from_env
from autocue.runner.report import golden_counts, goldens_line
from autocue.runner.selection import Selected, load_path
from autocue.scenario import SCENARIO_SUFFIXES


def pytest_addoption(parser: pytest.Parser) -> None:
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
    parser.addini("autocue_scenarios", "globs of scenario files to collect as tests", type="args", default=[])


PYTEST_FLAGS = {"agent": "--autocue-agent-override", "cmd": "--autocue-cmd-override",
                "default_agent": "--autocue-agent", "default_cmd": "--autocue-cmd",
                "update_goldens": "--autocue-update-goldens", "ci": "--autocue-ci", "out": "--autocue-out",
                "timeout": "--autocue-timeout"}
"""``RunOptions`` field → the pytest option that sets it, for messages (``RunOptions.flag``)."""


def _globs(config: pytest.Config) -> list[str]:
    return list(config.getoption("--autocue-scenarios")) + list(config.getini("autocue_scenarios"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    if file_path.suffix not in SCENARIO_SUFFIXES:
        return None
    globs = _globs(parent.config)
    if not globs:
        return None
    root = parent.config.rootpath
    try:
        rel = file_path.relative_to(root).as_posix()
    except ValueError:
        rel = file_path.as_posix()
    if any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(str(file_path), g) for g in globs):
        return ScenarioFile.from_parent(parent, path=file_path)  # type: ignore[no-any-return]
    return None


def _marker(tag: str) -> str:
    return re.sub(r"\W", "_", tag) or "_"


class ScenarioFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from autocue.scenario import ScenarioError

        try:
            selected = load_path(self.path)
        except ScenarioError as e:  # one line with file:line:col, not a traceback of the plugin
            raise self.CollectError(str(e)) from None
        for sel in selected:
            item = ScenarioItem.from_parent(self, name=sel.scenario.name, selected=sel)
            for tag in sel.scenario.tags:
                name = _marker(tag)
                self.config.addinivalue_line("markers", f"{name}: scenario tag {tag!r}")
                item.add_marker(name)
            yield item


class ScenarioItem(pytest.Item):
    def __init__(self, *, selected: Selected, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.selected = selected

    def runtest(self) -> None:
        from autocue.runner import run_one

        c = self.config
        out = c.getoption("--autocue-out")
        options = RunOptions(agent=c.getoption("--autocue-agent-override"),
                             cmd=c.getoption("--autocue-cmd-override"), default_agent=c.getoption("--autocue-agent"),
                             default_cmd=c.getoption("--autocue-cmd"), flags=dict(PYTEST_FLAGS),
                             timeout=c.getoption("--autocue-timeout"),
                             update_goldens=c.getoption("--autocue-update-goldens"),
                             ci=ci_from_env() if (ci := c.getoption("--autocue-ci")) is None else ci,
                             out=Path(out) if out else c.rootpath / "autocue-runs")
        result = run_one(self.selected, options)
        self.user_properties.append((GOLDENS, [g.status for g in result.goldens]))  # for the summary (and xdist)
        if not result.passed:
            raise ScenarioFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, AutocueError) and not isinstance(excinfo.value, ScenarioFailed):
            return f"{type(excinfo.value).__name__}: {excinfo.value}"  # autocue's message, not its frames
        if not isinstance(excinfo.value, ScenarioFailed):
            return str(super().repr_failure(excinfo))
        r = excinfo.value.result
        lines = [f"scenario {r.name!r} failed ({len(r.failures)} failure(s)):"]
        for f in r.failures:
            lines.append(f"  {f.line()}")
            if f.kind == "golden" and f.detail:
                lines.extend("    " + x for x in f.detail.splitlines())
        if r.diagnostics:
            lines += ["", "agent diagnostics:", *("  " + x for x in r.diagnostics)]
        lines += ["", "last screen:", *("  | " + x for x in (r.last_screen or "(empty)").splitlines()), ""]
        lines += ["transcript:", *("  " + t for t in r.transcript)]
        if r.workspace:
            lines.append(f"workspace: {r.workspace}")
        if r.out_dir:
            lines.append(f"recording: {r.out_dir}/session.cast")
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.selected.scenario.pos.line - 1, f"scenario: {self.name}"


GOLDENS = "autocue_goldens"
"""The ``user_properties`` name of a scenario item's golden statuses (they reach the xdist controller too)."""


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
            terminalreporter.write_line(f"autocue {goldens_line(golden_counts(self.statuses))}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_GoldenTally(), "autocue-golden-tally")
