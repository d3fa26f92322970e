"""``verify_sandbox_install``: prove an extension package installs and loads as a user gets it.

    from autocue.testing import verify_sandbox_install, when, call, say

    result = verify_sandbox_install(
        "examples/planner",
        expect={"extensions": 1, "tools": ["plan_list", "plan_propose"]},
        smoke={"mock_tools": {"bash": "ok"},
               "script": [when("List plans", [call("plan_list", {}), say("No plans.")])]},
    )
    assert result.loaded.extensions == 1
    assert result.smoke.events.tool_results_for("plan_list")[0].is_error is False

Steps (each timed in ``result.timings``): build the package's wheel (uv, else ``python -m
build``; build requirements that are not installed here are fetched from the configured
index when it is reachable, unless ``offline=True``); get a wheel of the running autocue
(reused when installed from a wheel; built once per source state, cached, from a checkout);
repack the dependency closure from the running environment into a local wheelhouse (cached);
create a fresh virtual environment in a temp dir (``uv venv``, else ``python -m venv``);
install both wheels with ``--no-index --find-links <wheelhouse>`` (the index only with
``offline=False``); then, inside that interpreter, ``autocue.sandbox.child``
discovers extensions through the ``autocue.extensions`` entry-point group only, loads them
for real, binds a session (skills), checks the tools and plays the smoke playbook. The temp
dir is removed at the end, also on failure and on ``KeyboardInterrupt``.

Every failure is a ``Problem`` with a ``kind`` (``ProblemKind``), a message, an explanation
and a fix. With ``check=True`` (default) any problem raises ``SandboxVerificationError`` (an
``AssertionError``) carrying the result; with ``check=False`` inspect ``result.problems``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autocue.sandbox.commands import Installer, clean_env, default_cache_dir, pick_uv, run, venv_python
from autocue.sandbox.errors import SandboxVerificationError as SandboxVerificationError
from autocue.sandbox.problems import Problem, ProblemKind, SandboxStepError
from autocue.sandbox.smoke import SmokeSpecError, events_from_json, load_smoke_file, smoke_to_wire
from autocue.sandbox.wheels import (
    Req,
    Wheelhouse,
    build_package_wheel,
    canonical,
    ensure_wheelhouse,
    installed,
    parse_requirements,
    running_autocue_wheel,
    source_modules,
    wheel_metadata,
)
from autocue.testing.events import TestEvents

EXPECT_KEYS = ("extensions", "tools", "skills")


@dataclass
class Loaded:
    """What loaded inside the sandbox."""

    extensions: int = 0
    extension_errors: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    entry_points: list[dict[str, Any]] = field(default_factory=list)
    """Every ``autocue.extensions`` entry point found: ``{"name", "value", "dist"}``."""
    by_extension: list[dict[str, Any]] = field(default_factory=list)
    """Per loaded extension: ``{"name", "path", "entry_point", "tools", "commands"}``."""


@dataclass
class SmokeResult:
    """The smoke playbook's run: ``events`` has the same query helpers as ``TestSession.events``."""

    events: TestEvents
    error: str | None = None
    transcript: str = ""

    @property
    def passed(self) -> bool:
        return self.error is None


@dataclass
class SandboxResult:
    package_dir: Path
    package: str = ""
    version: str = ""
    wheel: str = ""
    installer: str = ""
    python: str = ""
    loaded: Loaded = field(default_factory=Loaded)
    smoke: SmokeResult | None = None
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the check did that the user should know: build requirements fetched, autocue reused."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per step: build, autocue_wheel, wheelhouse, venv, install, load, total."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def problems_of(self, kind: ProblemKind | str) -> list[Problem]:
        k = ProblemKind(kind)
        return [p for p in self.problems if p.kind == k]

    def raise_for_problems(self) -> None:
        if self.problems:
            raise SandboxVerificationError(self)

    def report(self, *, details: bool = True) -> str:
        """A readable report: what was checked, what loaded, and every problem with its fix."""
        name = f"{self.package} {self.version}".strip() or str(self.package_dir)
        head = "PASSED" if self.ok else f"FAILED ({len(self.problems)} problem{'s' * (len(self.problems) != 1)})"
        lines = [f"sandbox install check of {name} ({self.package_dir}): {head}"]
        if self.wheel:
            lines.append(f"  wheel: {self.wheel}; installer: {self.installer}; python {self.python or '?'}")
        lo = self.loaded
        lines.append(f"  extensions loaded: {lo.extensions}"
                     + (f" ({', '.join(e['entry_point'] or e['name'] for e in lo.by_extension)})"
                        if lo.by_extension else ""))
        lines.append(f"  tools: {', '.join(lo.tools) or 'none'}")
        lines.append(f"  skills: {', '.join(lo.skills) or 'none'}")
        if self.smoke is not None:
            seq = ", ".join(self.smoke.events.tool_sequence()) or "no tool calls"
            lines.append(f"  smoke: {'passed' if self.smoke.passed else 'FAILED'} ({seq})")
        if self.timings:
            lines.append("  timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in self.timings.items()))
        for n in self.notes:
            lines.append(f"  note: {n}")
        for w in self.warnings:
            lines.append(f"  warning: {w}")
        for i, p in enumerate(self.problems, 1):
            lines.append("")
            lines.append(f"{i}. " + p.describe(details=details).replace("\n", "\n   "))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        from autocue.sandbox.smoke import events_to_json

        return {
            "ok": self.ok, "package_dir": str(self.package_dir), "package": self.package, "version": self.version,
            "wheel": self.wheel, "installer": self.installer, "python": self.python,
            "loaded": asdict(self.loaded),
            "smoke": None if self.smoke is None else {
                "passed": self.smoke.passed, "error": self.smoke.error,
                "tool_sequence": self.smoke.events.tool_sequence(), "events": events_to_json(self.smoke.events),
            },
            "problems": [p.to_json() for p in self.problems],
            "warnings": self.warnings,
            "notes": self.notes,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


# ---------------------------------------------------------------------------- expectations


def check_expect(expect: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``expect`` (keys ``extensions``: int, ``tools``: names, ``skills``: names or a count)."""
    if expect is None:
        return {}
    if not isinstance(expect, Mapping):
        raise TypeError(f"expect must be a dict with keys {', '.join(EXPECT_KEYS)}, got {type(expect).__name__}")
    unknown = sorted(set(expect) - set(EXPECT_KEYS))
    if unknown:
        raise TypeError(f"expect got unknown key(s) {unknown}. Valid keys: {', '.join(EXPECT_KEYS)}")
    out = dict(expect)
    n = out.get("extensions")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        raise TypeError(f"expect['extensions'] must be a count (int >= 0), got {n!r}")
    tools = out.get("tools")
    if tools is not None and (isinstance(tools, str) or not all(isinstance(t, str) for t in tools)):
        raise TypeError(f"expect['tools'] must be a list of tool names, got {tools!r}")
    skills = out.get("skills")
    if skills is not None and not isinstance(skills, int) and (
            isinstance(skills, str) or not all(isinstance(s, str) for s in skills)):
        raise TypeError(f"expect['skills'] must be a list of skill names or a count, got {skills!r}")
    return out


def expectation_problems(expect: Mapping[str, Any], loaded: Loaded) -> list[Problem]:
    out: list[Problem] = []
    eps = ", ".join(f"{e['name']} = {e['value']!r} ({e['dist']})" for e in loaded.entry_points) or "none"
    n = expect.get("extensions")
    if n is not None and loaded.extensions != n:
        errs = f" Load errors: {len(loaded.extension_errors)}." if loaded.extension_errors else ""
        out.append(Problem(
            ProblemKind.EXPECTATION, f"Expected {n} extension(s), got {loaded.extensions}",
            f"Entry points in the group autocue.extensions: {eps}.{errs}",
            "Fix the package's entry points (or the problems listed) — or the expectation, if the package changed "
            "on purpose.",
        ))
    available = ", ".join(loaded.tools) or "none"
    for t in expect.get("tools") or []:
        if t not in loaded.tools:
            out.append(Problem(
                ProblemKind.EXPECTATION, f'Expected tool "{t}" not found. Available: {available}',
                "No loaded extension registered a tool of that name in the clean install.",
                "Check the name (and that the extension registering it loaded), or fix the expectation.",
                data={"tool": t},
            ))
    skills = expect.get("skills")
    if isinstance(skills, int):
        if len(loaded.skills) != skills:
            out.append(Problem(
                ProblemKind.EXPECTATION, f"Expected {skills} skill(s), got {len(loaded.skills)}",
                f"Skills found: {', '.join(loaded.skills) or 'none'}.",
                "Check the extension's resources_discover handler and that the skill files are in the wheel.",
            ))
    else:
        for s in skills or []:
            if s not in loaded.skills:
                out.append(Problem(
                    ProblemKind.EXPECTATION,
                    f'Expected skill "{s}" not found. Available: {", ".join(loaded.skills) or "none"}',
                    "Skills come from the paths extensions return from resources_discover.",
                    "Check the skill's front matter name, its path, and that its files are in the wheel.",
                    data={"skill": s},
                ))
    return out


# ---------------------------------------------------------------------------- steps


@dataclass
class _Context:
    package_dir: Path
    tmp: Path
    cache_dir: Path
    uv: str | None
    offline: bool | None
    """True: never an index; False: the index for every step; None: installs offline, build
    requirements fetched when missing here and the configured index is reachable."""
    python: str
    find_links: list[Path]
    timeout: float
    env: dict[str, str]
    result: SandboxResult


@contextmanager
def _timed(ctx: _Context, step: str) -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        ctx.result.timings[step] = time.perf_counter() - t0


def build_step(ctx: _Context) -> Path:
    out = ctx.tmp / "dist"
    out.mkdir()
    wheel = build_package_wheel(ctx.package_dir, out, uv=ctx.uv, offline=ctx.offline, env=ctx.env,
                                timeout=ctx.timeout, notes=ctx.result.notes)
    name, version, _, _ = wheel_metadata(wheel)
    ctx.result.package, ctx.result.version, ctx.result.wheel = name, version, wheel.name
    return wheel


def wheelhouse_step(ctx: _Context, package_wheel: Path, autocue_wheel: Path) -> Wheelhouse:
    roots: list[Req] = []
    for wheel in (autocue_wheel, package_wheel):
        roots += parse_requirements(wheel_metadata(wheel)[2])
    return ensure_wheelhouse(ctx.cache_dir, roots, exclude=["autocue", ctx.result.package])


def venv_step(ctx: _Context) -> Path:
    venv = ctx.tmp / "venv"
    if ctx.uv is not None:
        args = [ctx.uv, "venv", "--quiet", "--no-config", "--python", ctx.python, str(venv)]
    else:
        args = [ctx.python, "-m", "venv", "--without-pip", str(venv)]
    res = run(args, cwd=ctx.tmp, env=ctx.env, timeout=ctx.timeout)
    vpy = venv_python(venv)
    if not res.ok or not vpy.exists():
        raise SandboxStepError(Problem(
            ProblemKind.VENV_FAILED, f"creating a virtual environment with {ctx.python} failed",
            "The interpreter could not create a venv (see details).",
            "Check the interpreter given as python= (it needs the venv module), or install uv.", res.shown(),
        ))
    ctx.result.python = _python_version(vpy, ctx)
    return venv


def _python_version(vpy: Path, ctx: _Context) -> str:
    if Path(ctx.python).resolve() == Path(sys.executable).resolve():
        return sys.version.split()[0]
    res = run([str(vpy), "-c", "import sys; print(sys.version.split()[0])"], cwd=ctx.tmp, env=ctx.env, timeout=60)
    return res.output.strip()


def install_step(ctx: _Context, venv: Path, wheels: Sequence[Path], house: Wheelhouse) -> None:
    vpy = venv_python(venv)
    links: list[str] = []
    for d in [house.path, *ctx.find_links]:
        links += ["--find-links", str(d)]
    if ctx.uv is not None:
        args = [ctx.uv, "pip", "install", "--no-config", "--python", str(vpy), *links]
        if ctx.offline is not False:
            args += ["--no-index", "--offline"]
    else:
        args = [sys.executable, "-m", "pip", "--python", str(vpy), "install", "--no-compile",
                "--disable-pip-version-check", *links]
        if ctx.offline is not False:
            args.append("--no-index")
    args += [str(w) for w in wheels]
    res = run(args, cwd=ctx.tmp, env=ctx.env, timeout=ctx.timeout)
    if not res.ok:
        raise SandboxStepError(classify_install_failure(res.output, res.shown(), house, ctx))


_MISSING_PATTERNS = (
    re.compile(r"Because (?:there is no version of |only )?([A-Za-z0-9][A-Za-z0-9._-]*)[^\n]*? "
               r"(?:was not found|is available|are available|cannot be used)"),
    re.compile(r"No matching distribution found for ([A-Za-z0-9][A-Za-z0-9._-]*)"),
    re.compile(r"Could not find a version that satisfies the requirement ([A-Za-z0-9][A-Za-z0-9._-]*)"),
)


def classify_install_failure(output: str, shown: str, house: Wheelhouse, ctx: _Context) -> Problem:
    flat = re.sub(r"\s+", " ", output)
    found = (canonical(m.group(1)) for pat in _MISSING_PATTERNS for m in pat.finditer(flat))
    names = [n for n in dict.fromkeys(found) if n != canonical(ctx.result.package)]
    resolution = bool(names) or any(s in flat for s in ("No solution found", "ResolutionImpossible",
                                                         "No matching distribution", "Could not find a version"))
    if not resolution:
        return Problem(
            ProblemKind.INSTALL_FAILED, f"installing {ctx.result.wheel} into the sandbox failed",
            "The installer failed for a reason other than a missing dependency (see details).",
            "Run the installer command from the details yourself and fix what it reports.", shown,
        )
    notes: list[str] = []
    for n in names:
        dist = installed(n)
        if dist is None:
            notes.append(f"{n} is not installed in the running environment ({sys.prefix}), so it is not in the "
                         "local wheelhouse")
        else:
            skipped = [s for s in house.skipped if canonical(s.split(":")[0].split()[0]) == n]
            notes.append(f"{n} {dist.version} is installed here, but the version the package asks for is not "
                         f"available offline{(': ' + skipped[0]) if skipped else ''}")
    which = ", ".join(names) or "a dependency"
    mode = ("Installs run offline (--no-index) from a wheelhouse repacked from the running environment"
            + (f" plus {', '.join(map(str, ctx.find_links))}" if ctx.find_links else "") + "; nothing is downloaded."
            if ctx.offline is not False else "The package index did not have a matching version.")
    return Problem(
        ProblemKind.MISSING_DEPENDENCY,
        f"the package's dependencies cannot be installed: {which} not available",
        mode + (" " + "; ".join(notes) + "." if notes else ""),
        "If the name or version constraint is wrong, fix [project].dependencies in pyproject.toml. If it is right, "
        "install it where the check runs (pip install <name>) so it can be repacked, pass find_links=[<dir of "
        "wheels>] (--find-links), or allow the index (offline=False / --online).",
        shown, data={"missing": names},
    )


def child_step(ctx: _Context, venv: Path, package_wheel: Path, wire_smoke: dict[str, Any] | None) -> dict[str, Any]:
    work = ctx.tmp / "work"
    agent_dir = ctx.tmp / "agent"
    tmp = ctx.tmp / "tmp"
    for d in (work, agent_dir, tmp):
        d.mkdir(exist_ok=True)
    _, _, _, tops = wheel_metadata(package_wheel)
    request = {
        "work_dir": str(work), "agent_dir": str(agent_dir), "package": ctx.result.package,
        "package_top_level": tops, "source_modules": source_modules(ctx.package_dir), "smoke": wire_smoke,
    }
    req_path, rep_path = ctx.tmp / "request.json", ctx.tmp / "report.json"
    req_path.write_text(json.dumps(request), encoding="utf-8")
    env = dict(ctx.env)
    env.update({"AUTOCUE_DIR": str(agent_dir), "TMPDIR": str(tmp), "TEMP": str(tmp), "TMP": str(tmp)})
    args = [str(venv_python(venv)), "-I", "-u", "-m", "autocue.sandbox.child", str(req_path), str(rep_path)]
    res = run(args, cwd=work, env=env, timeout=ctx.timeout)
    report: dict[str, Any] | None = None
    if rep_path.is_file():
        try:
            report = json.loads(rep_path.read_text(encoding="utf-8"))
        except ValueError:
            report = None
    if res.timed_out or report is None or "crash" in report:
        crash = (report or {}).get("crash")
        why = (f"it timed out after {ctx.timeout:g} s" if res.timed_out
               else f"it crashed: {crash}" if crash else f"it exited with {res.returncode} without a report")
        raise SandboxStepError(Problem(
            ProblemKind.SANDBOX_ERROR, f"the check inside the sandbox interpreter did not finish: {why}",
            "Loading the extensions in the fresh interpreter broke the checker itself (an extension that exits the "
            "process, hangs at import, or an autocue bug).",
            "Look at the output in details; run `python -c 'import <module>'` in a clean venv to reproduce.",
            ((report or {}).get("traceback") or "") + "\n" + res.shown(),
        ))
    return report


# ---------------------------------------------------------------------------- the check


def _apply_report(result: SandboxResult, report: Mapping[str, Any], expect: Mapping[str, Any]) -> None:
    lo = report.get("loaded") or {}
    result.loaded = Loaded(
        int(lo.get("extensions", 0)), list(lo.get("extension_errors", [])), list(lo.get("tools", [])),
        list(lo.get("skills", [])), list(report.get("entry_points", [])), list(report.get("extensions", [])),
    )
    result.python = str(report.get("python") or result.python)
    result.warnings += [str(w) for w in report.get("warnings", [])]
    problems = [Problem.from_json(p) for p in report.get("problems", [])]
    own = [e for e in result.loaded.entry_points if e.get("dist") and canonical(e["dist"]) == canonical(result.package)]
    if not own:
        problems.insert(0, Problem(
            ProblemKind.NO_ENTRY_POINTS,
            f"{result.package} declares no entry point in the group autocue.extensions",
            "autocue finds installed extensions through that entry-point group only; without one, installing the "
            "package adds nothing to a session.",
            'Add to pyproject.toml:\n    [project.entry-points."autocue.extensions"]\n    myext = "my_module"  '
            "# a module with def extension(api), or \"my_module:function\"",
        ))
    _hint_undeclared(problems)
    result.problems += problems
    smoke = report.get("smoke")
    if smoke is not None:
        events = events_from_json(smoke["events"]) if smoke.get("events") else TestEvents()
        result.smoke = SmokeResult(events, smoke.get("error"), str(smoke.get("transcript") or ""))
        if smoke.get("error"):
            result.problems.append(Problem(
                ProblemKind.SMOKE_FAILED, "the smoke playbook failed inside the sandbox",
                "The installed extensions did not behave as the smoke playbook scripts (the error names the turn, "
                "step and action).",
                "Fix the extension or the smoke playbook; result.smoke.transcript shows the run.",
                str(smoke["error"]) + ("\n\n" + str(smoke.get("transcript")) if smoke.get("transcript") else ""),
            ))
    if expect:
        result.problems += expectation_problems(expect, result.loaded)


def _hint_undeclared(problems: list[Problem]) -> None:
    """Name the distribution that provides a module an extension imports without declaring it."""
    import importlib.metadata as md

    mapping: dict[str, list[str]] | None = None
    for p in problems:
        if p.kind is not ProblemKind.UNDECLARED_DEPENDENCY:
            continue
        if mapping is None:
            mapping = dict(md.packages_distributions())
        top = str(p.data.get("module", "")).split(".")[0]
        dists = mapping.get(top)
        if dists:
            p.fix += f" In the running environment {top!r} comes from: {', '.join(sorted(set(dists)))}."
            p.data["distributions"] = sorted(set(dists))


def verify_sandbox_install(
    package_dir: str | os.PathLike[str],
    *,
    expect: Mapping[str, Any] | None = None,
    smoke: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    python: str | os.PathLike[str] | None = None,
    installer: Installer = "auto",
    offline: bool | None = None,
    find_links: Sequence[str | os.PathLike[str]] = (),
    cache_dir: str | os.PathLike[str] | None = None,
    check: bool = True,
    keep: bool = False,
    timeout: float = 300.0,
    temp_parent: str | os.PathLike[str] | None = None,
) -> SandboxResult:
    """Build, install into a fresh venv and load ``package_dir``'s extensions; see the module docstring.

    ``expect``: ``{"extensions": n, "tools": [...], "skills": [...] or n}``. ``smoke``: a dict
    ``{"mock_tools", "mock_ui", "script": [when(...)...]}`` (static data only) or a smoke file path.
    ``python``: the interpreter for the venv (default: the running one). ``installer``: ``auto``
    (uv when found), ``uv`` or ``pip``. ``offline``: ``None`` (default) installs from the local
    wheelhouse only and fetches missing build requirements from the configured index when it is
    reachable (said in ``result.notes``); ``True`` never contacts an index; ``False`` allows the
    index in every step.
    ``find_links``: more directories of wheels. ``cache_dir``: default ``default_cache_dir()``.
    ``keep``: leave the temp dir (its path is in the report) for debugging.
    """
    pkg = Path(package_dir).resolve()
    exp = check_expect(expect)
    wire: dict[str, Any] | None = None
    if smoke is not None:
        wire = smoke_to_wire(smoke) if isinstance(smoke, Mapping) else load_smoke_file(Path(smoke))
    uv = pick_uv(installer)
    result = SandboxResult(pkg, installer="uv" if uv else "pip")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    env = clean_env({"UV_CACHE_DIR": str(cache / "uv")})
    if offline is not False:  # installs never use an index unless offline=False
        env["UV_OFFLINE"] = "1"
        env["PIP_NO_INDEX"] = "1"
    if temp_parent is not None:
        Path(temp_parent).mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="autocue-sandbox-", dir=temp_parent))
    ctx = _Context(pkg, tmp, cache, uv, offline, os.fspath(python) if python else sys.executable,
                   [Path(f).resolve() for f in find_links], timeout, env, result)
    t0 = time.perf_counter()
    try:
        _run_steps(ctx, exp, wire)
    except SandboxStepError as e:
        result.problems.append(e.problem)
    finally:
        result.timings["total"] = time.perf_counter() - t0
        if keep:
            result.warnings.append(f"the sandbox was kept at {tmp} (keep=True); remove it yourself")
        else:
            _remove(tmp)
    if check:
        result.raise_for_problems()
    return result


def _run_steps(ctx: _Context, expect: Mapping[str, Any], wire: dict[str, Any] | None) -> None:
    if not ctx.package_dir.is_dir():
        raise SandboxStepError(Problem(
            ProblemKind.NOT_A_PACKAGE, f"{ctx.package_dir} is not a directory",
            "verify_sandbox_install takes the directory of a Python package (with pyproject.toml).",
            "Pass the package's directory.",
        ))
    with _timed(ctx, "build"):
        wheel = build_step(ctx)
    with _timed(ctx, "autocue_wheel"):
        autocue_wheel = running_autocue_wheel(ctx.cache_dir, uv=ctx.uv, env=ctx.env, timeout=ctx.timeout,
                                              offline=ctx.offline, notes=ctx.result.notes)
    with _timed(ctx, "wheelhouse"):
        house = wheelhouse_step(ctx, wheel, autocue_wheel)
    with _timed(ctx, "venv"):
        venv = venv_step(ctx)
    with _timed(ctx, "install"):
        install_step(ctx, venv, [wheel, autocue_wheel], house)
    with _timed(ctx, "load"):
        report = child_step(ctx, venv, wheel, wire)
    _apply_report(ctx.result, report, expect)


def _remove(path: Path) -> None:
    """Remove a sandbox dir; retried once (a just-killed process may still hold files)."""
    def onerror(func: Callable[..., Any], p: str, exc: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(p, 0o700)
            func(p)

    shutil.rmtree(path, onerror=onerror)
    if path.exists():
        time.sleep(0.05)
        shutil.rmtree(path, ignore_errors=True)


__all__ = [
    "EXPECT_KEYS", "Loaded", "Problem", "ProblemKind", "SandboxResult", "SandboxVerificationError",
    "SmokeResult", "SmokeSpecError", "check_expect", "verify_sandbox_install",
]
