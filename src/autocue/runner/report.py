"""What a run reports: per scenario, its failures, screenshots, paths; JSON and JUnit forms.

``RunReport.to_json()`` is the ``--json`` object (and ``autocue run --out DIR``'s ``DIR/report.json``)::

    {"passed": N, "failed": N, "goldens": {"written": N, "compared": N, "failed": N}, "cwd": "DIR",
     "scenarios": [{"name", "file", "passed", "duration_s", "workspace", "out_dir",
      "failures": [{"kind", "message", "position", "diff"?}], "screenshots": {"LABEL": "PATH"},
      "goldens": [{"label", "status", "golden", "actual"}], "transcript": ["LINE", ...]}]}

plus ``"ended_by_runner": "quit input" | "SIGTERM" | "SIGKILL"`` for a program the executor ended
after its timeline (it was still running and the scenario has no ``expect.exitCode``), ``"sandbox": NAME``
for a run in a sandbox (``--sandbox``) and ``"egress": [{"destination", "count"}]`` when the program
tried to reach a host other than the mock server (``autocue.isolation``). A run of cells
(``--job``, ``--matrix``: ``autocue.runner.jobs``) adds each scenario's ``"cell"`` id and, when it was
retried, ``"attempts"`` (the earlier attempts' objects), and a top-level ``"not_run"`` list of the cells
it did not run (``{"cell", "name", "file", "reason"}``).

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

FailureKind = Literal["assert", "golden", "exit_code", "artifact", "timeout", "tool_result", "llm", "setup", "infra",
                      "egress"]
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
    sandbox: str = ""
    """The sandbox provider the program ran in (``--sandbox``; ``none``: a local process)."""
    egress: list[dict[str, Any]] = field(default_factory=list)
    """What the program tried to reach besides the mock server: ``{"destination", "count"}`` each
    (``autocue.isolation``)."""
    ended_by_runner: str = ""
    """How the executor ended a program still running after its timeline (no ``expect.exitCode``):
    ``quit input``, ``SIGTERM`` or ``SIGKILL`` (its process group); empty when it exited by itself."""
    cell: str = ""
    """The cell's stable id in a run of cells (``autocue.runner.matrix.Cell.id``); empty otherwise."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """The earlier attempts of a retried cell (``--retry``), as their JSON objects, oldest first."""

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
                **({"sandbox": self.sandbox} if self.sandbox not in ("", "none") else {}),
                **({"egress": list(self.egress)} if self.egress else {}),
                **({"warnings": list(self.warnings)} if self.warnings else {}),
                **({"side_requests": self.side_requests} if self.side_requests else {}),
                **({"diagnostics": self.diagnostics, "last_screen": self.last_screen} if self.diagnostics else {}),
                **({"cell": self.cell} if self.cell else {}), **({"attempts": self.attempts} if self.attempts else {})}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ScenarioResult:
        """The result ``to_json`` wrote (a job's cell file): what the report, the summary and JUnit show."""
        from autocue.runner.goldens import GoldenResult

        r = cls(name=str(d["name"]), file=str(d["file"]), duration_s=float(d.get("duration_s") or 0.0),
                workspace=d.get("workspace"), out_dir=d.get("out_dir"), screenshots=dict(d.get("screenshots") or {}),
                transcript=list(d.get("transcript") or ()), side_requests=list(d.get("side_requests") or ()),
                diagnostics=list(d.get("diagnostics") or ()), last_screen=str(d.get("last_screen") or ""),
                warnings=list(d.get("warnings") or ()), ended_by_runner=str(d.get("ended_by_runner") or ""),
                cell=str(d.get("cell") or ""), attempts=list(d.get("attempts") or ()),
                sandbox=str(d.get("sandbox") or ""), egress=list(d.get("egress") or ()))
        r.failures = [Failure(f["kind"], f["message"], f.get("position") or "", f.get("diff") or "")
                      for f in d.get("failures") or ()]
        r.goldens = [GoldenResult(g["label"], Path(g["golden"]), g["status"],
                                  Path(g["actual"]) if g.get("actual") else None) for g in d.get("goldens") or ()]
        return r


@dataclass(slots=True)
class RunReport:
    scenarios: list[ScenarioResult] = field(default_factory=list)
    cwd: str = field(default_factory=os.getcwd)
    """Where the run started: the scenarios' relative ``file`` paths are read from there."""
    not_run: list[dict[str, str]] = field(default_factory=list)
    """Cells of a run of cells it did not run: ``{"cell", "name", "file", "reason"}`` (reason ``deadline``
    or ``interrupted``); a resumed job (``--job``) runs them."""

    @property
    def passed(self) -> int:
        return sum(1 for s in self.scenarios if s.passed)

    @property
    def failed(self) -> int:
        return len(self.scenarios) - self.passed

    @property
    def ok(self) -> bool:
        return self.failed == 0 and not self.not_run

    def golden_counts(self) -> dict[str, int]:
        """Screenshots whose golden was written (new or updated), compared (matched or differed) and failed
        (differed, or missing in CI mode)."""
        return golden_counts(g.status for s in self.scenarios for g in s.goldens)

    def summary(self) -> str:
        """The last line of ``autocue run``: ``N passed, N failed; goldens: N written, N compared, N failed``."""
        left = f", {len(self.not_run)} not run" if self.not_run else ""
        return f"{self.passed} passed, {self.failed} failed{left}; {goldens_line(self.golden_counts())}"

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "goldens": self.golden_counts(), "cwd": self.cwd,
                "scenarios": [s.to_json() for s in self.scenarios],
                **({"not_run": list(self.not_run)} if self.not_run else {})}

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
        for n in self.not_run:  # a cell the run did not reach (deadline, interrupted): skipped
            case = ET.SubElement(suite, "testcase", classname=n.get("file", ""), name=n.get("name", ""), time="0")
            ET.SubElement(case, "skipped", message=f"not run ({n.get('reason', '')}): {n.get('cell', '')}")
        if self.not_run:
            suite.set("tests", str(len(self.scenarios) + len(self.not_run)))
            suite.set("skipped", str(len(self.not_run)))
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def load_report(path: Path) -> dict[str, Any]:
    """A JSON report file (raises ``ReportError`` naming the file); a job directory is read by
    ``autocue.runner.jobs.load_reports``."""
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
    """The report files of ``paths`` merged (``merge_report_data``)."""
    return merge_report_data([load_report(p) for p in paths])


def merge_report_data(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report of several: scenarios in order; a cell (``"cell"`` id) that two reports ran is the later
    one's; a cell one lists as not run is not run only when no report ran it."""
    by_cell: dict[str, int] = {}
    scenarios: list[dict[str, Any]] = []
    for s in (s for r in reports for s in r["scenarios"]):
        cell = s.get("cell") if isinstance(s, dict) else None
        if isinstance(cell, str) and cell in by_cell:
            scenarios[by_cell[cell]] = s
            continue
        if isinstance(cell, str):
            by_cell[cell] = len(scenarios)
        scenarios.append(s)
    not_run: list[dict[str, Any]] = []
    for n in (n for r in reports for n in r.get("not_run") or () if isinstance(n, dict)):
        if n.get("cell") not in by_cell and n.get("cell") not in {x.get("cell") for x in not_run}:
            not_run.append(n)
    passed = sum(1 for s in scenarios if s.get("passed"))
    statuses = [g.get("status") for s in scenarios for g in s.get("goldens") or () if isinstance(g, dict)]
    out: dict[str, Any] = {"passed": passed, "failed": len(scenarios) - passed, "goldens": golden_counts(statuses)}
    cwds = {r.get("cwd") for r in reports}
    if len(cwds) == 1 and isinstance(cwd := cwds.pop(), str):  # shards run from one folder
        out["cwd"] = cwd
    return {**out, "scenarios": scenarios, **({"not_run": not_run} if not_run else {})}


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
