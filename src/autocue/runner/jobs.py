"""Runs of cells: resumable job directories, retries of infrastructure failures, an outer deadline.

``run_cells(cells, options, plan)`` runs each cell (``autocue.runner.matrix.Cell``), ``options.jobs`` at
once (threads, as ``run_selected``), and returns the ``RunReport`` of every cell of the plan. With a job
directory (``--job DIR``)::

    DIR/job.json                 {"autocue_job": 1, "cells": [{"id", "file", "name", "agent", "api", "via"}, ...]}
    DIR/cells/<slug>-<hash>.json {"cell": ID, "result": {the scenario's report object, with "attempts"}}

each cell's file is written atomically (a temporary file, then ``os.replace``) the moment it finishes, so a
job killed at any point (SIGKILL included) holds only whole results; running it again with the same
``DIR`` skips the cells that have one. ``job_report(DIR)`` assembles the report from the directory alone
(``autocue run --merge-reports DIR...`` takes job directories).

Retries (``--retry N --retry-on setup,timeout,infra``): a cell with a failure of a retried kind runs again,
up to N more times (its other failures followed from that one: a program that timed out left its checks an
incomplete screen); the report keeps the earlier attempts (``"attempts"``). A cell that failed only the
scenario's own checks (``assert``, ``golden``, ``exit_code``, ``artifact``, ``tool_result``, ``llm``) is never
retried. ``infra`` is the runner failing on the cell (an exception outside the scenario's checks).

The deadline (``--deadline``): no cell starts after it; cells running then finish within their own
``--timeout``, or with ``kill_at_deadline`` (``--deadline-kill``) are stopped at the deadline like an
interrupt (process groups killed, workspaces removed). Cells not run are listed in the report's
``not_run`` (reason ``deadline``, or ``interrupted`` after SIGINT/SIGTERM); a resume runs them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.runner.errors import Interrupted, JobError, ReportError

if TYPE_CHECKING:
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.matrix import Cell
    from autocue.runner.options import RunOptions
    from autocue.runner.report import RunReport, ScenarioResult

RETRY_KINDS: dict[str, frozenset[str]] = {
    "setup": frozenset({"setup"}), "timeout": frozenset({"timeout"}), "infra": frozenset({"infra"}),
}
"""``--retry-on`` words and the report's failure kinds each retries."""
NEVER_RETRIED = ("assert", "golden", "exit_code", "artifact", "tool_result", "llm")
JOB_VERSION = 1


@dataclass(slots=True)
class Plan:
    """How to run the cells (the ``--job``, ``--retry``, ``--deadline`` flags)."""

    job: Path | None = None
    retry: int = 0
    retry_on: frozenset[str] = frozenset()
    """Failure kinds a retry is for (``parse_retry_on``)."""
    deadline: float | None = None
    """``time.time()`` after which no cell starts."""
    kill_at_deadline: bool = False
    skipped: list[str] = field(default_factory=list)
    """Set by ``run_cells``: ids of the cells a resumed job did not run again (they had a result)."""


def parse_retry_on(text: str) -> frozenset[str]:
    """``setup,timeout,infra`` → the failure kinds to retry (raises ``ValueError`` naming a bad word)."""
    kinds: set[str] = set()
    for word in (w.strip() for w in text.split(",") if w.strip()):
        if word in NEVER_RETRIED:
            raise ValueError(f"--retry-on {word}: a {word} failure is the scenario's own result, never retried; "
                             f"choose from {', '.join(RETRY_KINDS)}")
        if word not in RETRY_KINDS:
            raise ValueError(f"--retry-on {word}: unknown; choose from {', '.join(RETRY_KINDS)}")
        kinds |= RETRY_KINDS[word]
    return frozenset(kinds)


def parse_deadline(text: str, now: float | None = None) -> float:
    """``--deadline``: seconds from ``now`` (``900``, ``1.5``) or an ISO 8601 time (``2026-11-28T16:10:00Z``; one
    without a zone is local time) → a ``time.time()`` value; raises ``ValueError``."""
    import datetime

    now = time.time() if now is None else now
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if seconds < 0:
            raise ValueError(f"--deadline {text}: seconds from now must be 0 or more")
        return now + seconds
    try:
        when = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--deadline {text!r}: expected seconds from now (900) or an ISO 8601 time "
                         "(2026-11-28T16:10:00Z)") from None
    return when.timestamp() if when.tzinfo else when.astimezone().timestamp()


def cell_file(job: Path, cell_id: str) -> Path:
    """The result file of ``cell_id`` in the job directory ``job``: a readable slug and a hash of the id."""
    slug = re.sub(r"[^A-Za-z0-9._=-]+", "_", cell_id)[-80:].strip("_.")
    return job / "cells" / f"{slug}-{hashlib.sha256(cell_id.encode()).hexdigest()[:12]}.json"


def _write_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def read_cell(path: Path) -> dict[str, Any] | None:
    """A cell file's result object (None when there is none); raises ``JobError`` for a file that is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise JobError(f"{path}: not a cell result of autocue run --job ({e}): delete it to run the cell again") \
            from None
    if not isinstance(data, dict) or not isinstance(data.get("result"), dict):
        raise JobError(f"{path}: not a cell result of autocue run --job (no \"result\" object): delete it to run "
                       "the cell again")
    result: dict[str, Any] = data["result"]
    return result


def open_job(job: Path, cells: Sequence[Cell]) -> dict[str, dict[str, Any]]:
    """Prepare the job directory for ``cells`` (write its ``job.json``); the results it already holds, by cell id."""
    if job.exists() and not job.is_dir():
        raise JobError(f"--job {job}: not a directory; give a directory for the job's cell results")
    try:
        job.mkdir(parents=True, exist_ok=True)
        _write_atomic(job / "job.json", {"autocue_job": JOB_VERSION, "cwd": os.getcwd(),
                                         "cells": [c.to_json() for c in cells]})
    except OSError as e:
        raise JobError(f"--job {job}: cannot write the job directory ({e.strerror or e})") from None
    done: dict[str, dict[str, Any]] = {}
    for c in cells:
        result = read_cell(cell_file(job, c.id))
        if result is not None:
            done[c.id] = result
    return done


def job_report(job: Path) -> dict[str, Any]:
    """The JSON report of a job directory: its cells in order, those with no result listed as not run."""
    try:
        plan = json.loads((job / "job.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{job}: not a job directory of autocue run --job (no job.json)") from None
    except (OSError, ValueError) as e:
        raise ReportError(f"{job}/job.json: not a job file ({e})") from None
    if not isinstance(plan, dict) or not isinstance(plan.get("cells"), list):
        raise ReportError(f"{job}/job.json: not a job file of autocue run --job (no \"cells\" list)")
    from autocue.runner.report import RunReport, ScenarioResult

    report = RunReport(cwd=str(plan.get("cwd") or os.getcwd()))
    for c in plan["cells"]:
        try:
            result = read_cell(cell_file(job, str(c["id"])))
        except JobError as e:
            raise ReportError(str(e)) from None
        if result is None:
            report.not_run.append({"cell": str(c["id"]), "name": str(c.get("name")), "file": str(c.get("file")),
                                   "reason": "not run yet"})
        else:
            report.scenarios.append(ScenarioResult.from_json(result))
    return report.to_json()


def load_reports(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The reports of JSON report files and job directories (raises ``ReportError``)."""
    from autocue.runner.report import load_report

    return [job_report(p) if p.is_dir() else load_report(p) for p in paths]


def merge_paths(paths: Sequence[Path]) -> dict[str, Any]:
    """``autocue run --merge-reports``: report files and job directories, merged (``merge_report_data``)."""
    from autocue.runner.report import merge_report_data

    return merge_report_data(load_reports(paths))


def durations_of(report: str | Path) -> dict[str, float]:
    """Seconds per cell id (and per ``file::name``, for a report of a run without cells) of a JSON report or a
    job directory; raises ``ReportError``."""
    from autocue.runner.matrix import shown_path

    out: dict[str, float] = {}
    for s in merge_paths([Path(report)])["scenarios"]:
        if isinstance(s, dict) and isinstance(s.get("duration_s"), (int, float)):
            key = s.get("cell") or f"{shown_path(str(s.get('file')))}::{s.get('name')}"
            out[str(key)] = float(s["duration_s"])
    return out


def _run_attempt(cell: Cell, options: RunOptions, stop: Interrupt) -> ScenarioResult:
    """One attempt; an exception of the runner itself (not the scenario's checks) is an ``infra`` failure."""
    from autocue.runner.executor import Execution
    from autocue.runner.report import ScenarioResult

    try:
        stop.check()
        return Execution(cell.selected.scenario, cell.selected.extras, cell.options(options), stop).run()
    except Interrupted:
        raise
    except Exception as e:  # the runner failing on this cell: reported (and retried with --retry-on infra)
        r = ScenarioResult(cell.name, cell.selected.scenario.file)
        r.fail("infra", f"the runner failed on this cell: {type(e).__name__}: {e}", str(cell.selected.scenario.pos))
        return r


def _retryable(r: ScenarioResult, kinds: frozenset[str]) -> bool:
    """A failure of a retried kind (the others of the attempt followed from it: a program that timed out left
    its checks an incomplete screen); a cell that failed only its own checks is never retried."""
    return any(f.kind in kinds for f in r.failures)


def run_cell(cell: Cell, options: RunOptions, plan: Plan, stop: Interrupt) -> ScenarioResult:
    """A cell with its retries (raises ``Interrupted`` when stopped: the cell is then not run)."""
    earlier: list[dict[str, Any]] = []
    while True:
        r = _run_attempt(cell, options, stop)
        r.cell = cell.id
        out_of_time = plan.deadline is not None and time.time() >= plan.deadline
        if len(earlier) >= plan.retry or not _retryable(r, plan.retry_on) or out_of_time:
            r.attempts = earlier
            return r
        earlier.append(r.to_json())


def run_cells(cells: Sequence[Cell], options: RunOptions, plan: Plan, stop: Interrupt) -> RunReport:
    """Run ``cells`` (see the module docstring); the report of every cell, in order, with ``not_run``."""
    from concurrent.futures import ThreadPoolExecutor

    from autocue.runner.report import RunReport, ScenarioResult

    done = open_job(plan.job, cells) if plan.job is not None else {}
    plan.skipped = [c.id for c in cells if c.id in done]
    todo = [c for c in cells if c.id not in done]
    results: dict[str, ScenarioResult] = {}
    reasons: dict[str, str] = {}
    lock = threading.Lock()
    queue = iter(todo)

    def worker() -> None:
        while True:
            with lock:
                cell = next(queue, None)
            if cell is None:
                return
            if stop.event.is_set() or (plan.deadline is not None and time.time() >= plan.deadline):
                reasons[cell.id] = "deadline" if stop.signum is None else "interrupted"
                continue
            try:
                r = run_cell(cell, options, plan, stop)
            except Interrupted:
                reasons[cell.id] = "deadline" if stop.signum is None else "interrupted"
                continue
            if plan.job is not None:
                _write_atomic(cell_file(plan.job, cell.id), {"cell": cell.id, "result": r.to_json()})
            results[cell.id] = r

    timer = None
    if plan.kill_at_deadline and plan.deadline is not None:
        timer = threading.Timer(max(0.0, plan.deadline - time.time()), stop.halt)
        timer.daemon = True
        timer.start()
    try:
        n = max(1, min(options.jobs, len(todo)))
        if n > 1:
            with ThreadPoolExecutor(max_workers=n, thread_name_prefix="autocue-cell") as pool:
                for f in [pool.submit(worker) for _ in range(n)]:
                    f.result()
        else:
            worker()
    finally:
        if timer is not None:
            timer.cancel()
    report = RunReport()
    for c in cells:
        if c.id in done:
            report.scenarios.append(ScenarioResult.from_json(done[c.id]))
        elif c.id in results:
            report.scenarios.append(results[c.id])
        else:
            report.not_run.append({"cell": c.id, "name": c.name, "file": c.file,
                                   "reason": reasons.get(c.id, "interrupted")})
    return report


__all__ = ["NEVER_RETRIED", "RETRY_KINDS", "Plan", "cell_file", "durations_of", "job_report", "load_reports",
           "merge_paths", "open_job", "parse_deadline", "parse_retry_on", "read_cell", "run_cell", "run_cells"]
