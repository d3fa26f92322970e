"""What a run reports: per scenario, its failures, screenshots, paths; JSON and JUnit forms.

``RunReport.to_json()`` is the ``--json`` object (and ``autocue run --out DIR``'s ``DIR/report.json``)::

    {"passed": N, "failed": N, "goldens": {"written": N, "compared": N, "failed": N}, "cwd": "DIR",
     "scenarios": [{"name", "file", "passed", "duration_s", "workspace", "out_dir",
      "failures": [{"kind", "message", "position", "diff"?}], "screenshots": {"LABEL": "PATH"},
      "goldens": [{"label", "status", "golden", "actual"}], "transcript": ["LINE", ...]}]}

plus ``"ended_by_runner": "quit input" | "SIGTERM" | "SIGKILL"`` for a program the executor ended
after its timeline (it was still running and the scenario has no ``expect.exitCode``).

``merge_reports`` combines the JSON reports of shards; ``merge_junit`` their JUnit files.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from autocue.runner.errors import ReportError as ReportError

if TYPE_CHECKING:
    from autocue.runner.goldens import GoldenResult

FailureKind = Literal["assert", "golden", "exit_code", "artifact", "timeout", "tool_result", "llm", "setup", "acp"]
FAILURE_KINDS: tuple[str, ...] = get_args(FailureKind)


@dataclass(slots=True)
class Failure:
    kind: FailureKind
    message: str
    position: str = ""
    detail: str = ""
    """Long text (a golden diff, a screen): shown by pytest and JUnit, not in the one-line message."""

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "message": self.message, "position": self.position}
        if self.kind == "golden" and self.detail:
            out["diff"] = self.detail  # the unified diff of golden and screen
        return out

    def line(self) -> str:
        return f"{self.position}: {self.kind}: {self.message}" if self.position else f"{self.kind}: {self.message}"


@dataclass(slots=True)
class ScenarioResult:
    name: str
    file: str
    runner: str = ""
    terminal: str = ""
    duration_s: float = 0.0
    program_s: float = 0.0
    """Seconds the program under test was alive."""
    workspace: str | None = None
    out_dir: str | None = None
    failures: list[Failure] = field(default_factory=list)
    screenshots: dict[str, str] = field(default_factory=dict)
    goldens: list[GoldenResult] = field(default_factory=list)
    """Each screenshot's golden: its file, what happened to it, the ``.actual`` screen (``autocue.runner.goldens``)."""
    exit_code: int | None = None
    last_screen: str = ""
    transcript: list[str] = field(default_factory=list)
    """One line per timeline event as it ran (``file:line:col event: what happened``)."""
    side_requests: list[dict[str, Any]] = field(default_factory=list)
    """Requests of a real agent besides its turns (``autocue.runner.diagnose.side_requests``)."""
    diagnostics: list[str] = field(default_factory=list)
    """For a failed run with the server: the first divergent request, undeclared tools, stderr tail."""
    warnings: list[str] = field(default_factory=list)
    """The scenario file's warnings (``file:line:col: ...``: keys it ignores, an assert with no check),
    shown with the result so a run never passes on something it silently left out."""
    ended_by_runner: str = ""
    """How the executor ended a program still running after its timeline (no ``expect.exitCode``):
    ``quit input``, ``SIGTERM`` or ``SIGKILL`` (its process group); empty when it exited by itself."""

    @property
    def ended_note(self) -> str:
        """``, ended by the runner: HOW`` for the summary line of ``autocue run``, or empty."""
        return f", ended by the runner: {self.ended_by_runner}" if self.ended_by_runner else ""

    @property
    def passed(self) -> bool:
        return not self.failures

    def fail(self, kind: FailureKind, message: str, position: str = "", detail: str = "") -> None:
        self.failures.append(Failure(kind, message, position, detail))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "file": self.file, "passed": self.passed, "duration_s": round(self.duration_s, 3),
                "workspace": self.workspace, "out_dir": self.out_dir,
                "failures": [f.to_json() for f in self.failures], "screenshots": dict(self.screenshots),
                "goldens": [g.to_json() for g in self.goldens], "transcript": list(self.transcript),
                **({"ended_by_runner": self.ended_by_runner} if self.ended_by_runner else {}),
                **({"warnings": list(self.warnings)} if self.warnings else {}),
                **({"side_requests": self.side_requests} if self.side_requests else {}),
                **({"diagnostics": self.diagnostics, "last_screen": self.last_screen} if self.diagnostics else {})}


@dataclass(slots=True)
class RunReport:
    scenarios: list[ScenarioResult] = field(default_factory=list)
    cwd: str = field(default_factory=os.getcwd)
    """Where the run started: the scenarios' relative ``file`` paths are read from there."""

    @property
    def passed(self) -> int:
        return sum(1 for s in self.scenarios if s.passed)

    @property
    def failed(self) -> int:
        return len(self.scenarios) - self.passed

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def golden_counts(self) -> dict[str, int]:
        """Screenshots whose golden was written (new or updated), compared (matched or differed) and failed
        (differed, or missing in CI mode)."""
        return golden_counts(g.status for s in self.scenarios for g in s.goldens)

    def summary(self) -> str:
        """The last line of ``autocue run``: ``N passed, N failed; goldens: N written, N compared, N failed``."""
        return f"{self.passed} passed, {self.failed} failed; {goldens_line(self.golden_counts())}"

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "goldens": self.golden_counts(), "cwd": self.cwd,
                "scenarios": [s.to_json() for s in self.scenarios]}

    def write_junit(self, path: Path) -> None:
        suite = ET.Element("testsuite", name="autocue", tests=str(len(self.scenarios)), failures=str(self.failed),
                           time=f"{sum(s.duration_s for s in self.scenarios):.3f}")
        for s in self.scenarios:
            case = ET.SubElement(suite, "testcase", classname=s.file, name=s.name, time=f"{s.duration_s:.3f}")
            for f in s.failures:
                el = ET.SubElement(case, "failure", type=f.kind, message=f.line())
                el.text = f"{f.line()}\n\n{f.detail}" if f.detail else f.line()
            if s.workspace or s.out_dir or s.ended_by_runner:
                out = ET.SubElement(case, "system-out")
                out.text = "\n".join(x for x in (f"workspace: {s.workspace}" if s.workspace else "",
                                                 f"out: {s.out_dir}" if s.out_dir else "",
                                                 f"ended by the runner: {s.ended_by_runner}" if s.ended_by_runner
                                                 else "") if x)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such report file") from None
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: not a JSON report ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise ReportError(f"{path}: not an autocue run report (no \"scenarios\" list): write it with "
                          "`autocue run --json > FILE`")
    return data


def golden_counts(statuses: Iterable[object]) -> dict[str, int]:
    """``written``, ``compared`` and ``failed`` of golden statuses (``autocue.runner.goldens``)."""
    from autocue.runner.goldens import COMPARED, FAILED, WRITTEN

    counts = {"written": 0, "compared": 0, "failed": 0}
    for st in statuses:
        counts["written"] += st in WRITTEN
        counts["compared"] += st in COMPARED
        counts["failed"] += st in FAILED
    return counts


def goldens_line(counts: dict[str, int]) -> str:
    return f"goldens: {counts['written']} written, {counts['compared']} compared, {counts['failed']} failed"


def merge_reports(paths: list[Path]) -> dict[str, Any]:
    reports = [_load(p) for p in paths]
    scenarios: list[dict[str, Any]] = [s for r in reports for s in r["scenarios"]]
    passed = sum(1 for s in scenarios if s.get("passed"))
    statuses = [g.get("status") for s in scenarios for g in s.get("goldens") or () if isinstance(g, dict)]
    out: dict[str, Any] = {"passed": passed, "failed": len(scenarios) - passed, "goldens": golden_counts(statuses)}
    cwds = {r.get("cwd") for r in reports}
    if len(cwds) == 1 and isinstance(cwd := cwds.pop(), str):  # shards run from one folder
        out["cwd"] = cwd
    return {**out, "scenarios": scenarios}


def merge_junit(paths: list[Path], out: Path) -> None:
    merged = ET.Element("testsuites")
    for p in paths:
        try:
            root = ET.parse(p).getroot()
        except (OSError, ET.ParseError) as e:
            raise ReportError(f"{p}: not a JUnit XML file ({e})") from None
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        merged.extend(suites)
    merged.set("tests", str(sum(int(s.get("tests", "0")) for s in merged)))
    merged.set("failures", str(sum(int(s.get("failures", "0")) for s in merged)))
    out.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(merged).write(out, encoding="utf-8", xml_declaration=True)
