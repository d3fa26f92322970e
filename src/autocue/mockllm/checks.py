"""Running a script's checks (``assert`` steps) against an incoming request.

A check runs when the request that would receive the reply at its position arrives, before
that reply is sent. ``Check.spec`` may be:

* a ``RequestExpectation`` (``expectRequest``): compared with the request itself, its
  differences kept as ``CheckResult.diff``;
* a scenario ``AssertSpec`` (``fs.exists`` / ``fs.notExists`` / ``json.file`` / ``git.commit``
  against the server's workspace, ``text.contains`` against the text of the conversation
  the request carries);
* a callable taking the ``Incoming`` request: it fails by returning ``False`` or raising;
* a mapping in scenario form (``{"fs": {"exists": [...]}}``), parsed with the scenario loader.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autocue.mockllm.expect import check_expectation, describe_diff
from autocue.mockllm.incoming import Incoming
from autocue.scenario.expect import RequestExpectation
from autocue.script.model import Check


@dataclass(slots=True)
class CheckResult:
    position: int
    """Flat index of the reply the check guards."""
    turn: int
    step: int
    description: str
    source: str | None
    passed: bool
    message: str = ""
    diff: list[dict[str, Any]] | None = None
    """For an ``expectRequest``: the structural differences (``path``, ``expected``, ``actual``)."""
    request: int | None = None
    """For an ``expectRequest``: the session's request number it was checked against."""

    def to_json(self) -> dict[str, Any]:
        out = {"position": self.position, "turn": self.turn, "step": self.step, "check": self.description,
               "source": self.source, "passed": self.passed, "message": self.message}
        if self.diff is not None:
            out |= {"request": self.request, "diff": self.diff}
        return out


def run_checks(checks: list[tuple[Check, int, int]], position: int, req: Incoming, workspace: Path,
               request: int) -> list[CheckResult]:
    """The results of the ``(check, turn, step)``s guarding the reply at ``position``, for the
    session's ``request``-th request ``req``."""
    results: list[CheckResult] = []
    for check, turn, step in checks:
        if isinstance(check.spec, RequestExpectation):
            diff = check_expectation(check.spec, req)
            results.append(CheckResult(position, turn, step, describe(check), check.source, not diff,
                                       describe_diff(diff), diff, request))
            continue
        ok, message = run_check(check, req, workspace)
        results.append(CheckResult(position, turn, step, describe(check), check.source, ok, message))
    return results


def describe(check: Check) -> str:
    spec = check.spec
    if isinstance(spec, dict):
        try:
            spec = _parse_mapping(spec)
        except Exception:
            return repr(spec)[:200]
    d = getattr(spec, "describe", None)
    if callable(d):
        return str(d())
    if callable(spec):
        return f"<check {getattr(spec, '__name__', type(spec).__name__)}>"
    return repr(spec)[:200]


def run_check(check: Check, req: Incoming, workspace: Path) -> tuple[bool, str]:
    """``(passed, message)`` for one check (not an ``expectRequest``); never raises."""
    spec = check.spec
    try:
        if isinstance(spec, dict):
            spec = _parse_mapping(spec)
        if hasattr(spec, "fs_exists") and hasattr(spec, "text_contains"):
            from autocue.scenario.assertions import evaluate_assert

            text = req.all_text() if spec.text_contains else None
            report = evaluate_assert(spec, workspace, text=text)
            return report.passed, report.message()
        if callable(spec):
            out = spec(req)
            if out is False:
                return False, f"{describe(check)} returned False"
            return True, ""
    except AssertionError as e:
        return False, str(e) or f"{describe(check)} failed"
    except Exception as e:  # a broken check is a failed check, reported with its error
        return False, f"{describe(check)} raised {type(e).__name__}: {e}"
    return False, f"cannot evaluate a check of type {type(spec).__name__} (expected an assert spec or a callable)"


def _parse_mapping(d: dict[str, Any]) -> Any:
    from autocue.scenario.assertions import AssertSpec, GitCommitCheck, JsonFileCheck

    fs = d.get("fs") or {}
    text = d.get("text") or {}
    js = (d.get("json") or {}).get("file") or []
    git = (d.get("git") or {}).get("commit") or []
    js = [js] if isinstance(js, dict) else js
    git = [git] if isinstance(git, dict) else git
    return AssertSpec(
        fs_exists=list(fs.get("exists") or []),
        fs_not_exists=list(fs.get("notExists") or []),
        text_contains=list(text.get("contains") or []),
        json_file=[JsonFileCheck(j["path"], j.get("pointer", ""), j.get("equals")) for j in js],
        git_commit=[GitCommitCheck(g["messageContains"]) for g in git],
    )
