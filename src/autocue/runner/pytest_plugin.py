"""The scenario runner's part of autocue's pytest plugin: scenario files as test items.

``autocue.pytest_plugin`` (the entry point) registers the options and, for a file that matches
``autocue_scenarios = GLOB ...`` in the pytest ini (or ``--autocue-scenarios GLOB``), imports this
module and collects a ``ScenarioFile``: its scenarios are items (id = scenario name, tags as
markers) run through the executor with the scenario's own program; ``--autocue-agent NAME`` /
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

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autocue.errors import AutocueError
from autocue.runner.errors import ScenarioFailed as ScenarioFailed
from autocue.runner.options import RunOptions, ci_from_env
from autocue.runner.report import ScenarioResult
from autocue.runner.selection import Selected, load_path

PYTEST_FLAGS = {"agent": "--autocue-agent-override", "cmd": "--autocue-cmd-override", "sandbox": "--autocue-sandbox",
                "default_agent": "--autocue-agent", "default_cmd": "--autocue-cmd",
                "update_goldens": "--autocue-update-goldens", "ci": "--autocue-ci", "out": "--autocue-out",
                "timeout": "--autocue-timeout"}
"""``RunOptions`` field → the pytest option that sets it, for messages (``RunOptions.flag``)."""


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
                             timeout=c.getoption("--autocue-timeout"), sandbox=c.getoption("--autocue-sandbox"),
                             sandbox_image=c.getoption("--autocue-sandbox-image"),
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
        r: ScenarioResult = excinfo.value.result
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
"""The ``user_properties`` name of a scenario item's golden statuses (they reach the xdist controller too, where
``autocue.pytest_plugin`` counts them: it spells the name out, a test checks both)."""
