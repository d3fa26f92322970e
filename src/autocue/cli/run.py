"""``autocue run``: run scenarios as end-to-end tests of a terminal program.

    autocue run SCENARIO_OR_DIR... [--agent NAME | --cmd 'COMMAND ARGS'] [--terminal WxH]
                [--speed S] [--timeout S] [--settle S] [--update-goldens] [--ci | --no-ci] [--out DIR]
                [--junit FILE] [--json] [--tags T,...] [-k SUBSTRING] [--keep] [-j N] [--shard I/N]
    autocue run --merge-reports A.json B.json ... [--junit MERGED.xml A.xml B.xml ...]

``DIR/report.json`` (``--out``, default ``./autocue-runs``) is the ``--json`` object, for ``autocue view DIR``.
Exit 0 when every scenario passed, 1 when one failed, 2 on a usage or scenario error; 130 (SIGINT) or
143 (SIGTERM) when interrupted: every running scenario was stopped and cleaned up (docs/runner.md).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.catalog.apis import APIS
from autocue.cli.args import fail
from autocue.cli.otel import add_options as add_otel_options
from autocue.cli.otel import start as start_otel

if TYPE_CHECKING:
    from autocue.runner import RunOptions
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.matrix import Cell
    from autocue.runner.report import RunReport

PROG = "autocue run"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run scenarios as end-to-end tests of a terminal program "
                                "(see docs/runner.md).")
    p.add_argument("paths", nargs="*", metavar="SCENARIO_OR_DIR", help="scenario files or directories")
    who = p.add_mutually_exclusive_group()
    from autocue.catalog.registry import agent_clis

    clis = ", ".join(c.name for c in agent_clis() if c.name != "autocue")
    who.add_argument("--agent", metavar="NAME", help=f"launch profile for every scenario: mock, autocue, {clis}, "
                     "or one of --agents-file (see docs/agents.md)")
    who.add_argument("--cmd", metavar="'COMMAND ARGS'",
                     help="command line of the program under test ({base_url}, {openai_base_url}, {api_key}, "
                          "{workspace}, {prompt}, {python}, {scenario}, {scenario_dir} are filled in)")
    p.add_argument("--agent-arg", dest="agent_args", action="append", default=[], metavar="ARG",
                   help="an extra argument for the agent CLI (repeat for several; use --agent-arg=-x for a dash)")
    p.add_argument("--llm-api", metavar="STYLE", help="wire protocol for an agent CLI that speaks several: "
                   f"{', '.join(e.agent_api for e in APIS.values())} (default: the scenario's server.llmApiStyle)")
    p.add_argument("--via", default=None, metavar="MODE",
                   help="how an agent is driven: print, tui or acp (acp = over its ACP server, the runner its "
                        "client; default: print mode or its TUI, by the scenario's inputs); a comma list "
                        "(--via print,acp) is an axis of cells (docs/scale.md)")
    p.add_argument("--agents-file", dest="agents_files", action="append", default=[], metavar="FILE",
                   help="a TOML or YAML file of user-defined launch profiles ([agents.NAME] tables)")
    p.add_argument("--sandbox", default="none", metavar="NAME", help="run the program under test in a sandbox: none "
                   "(default: a local process, proxy variables at a refusing proxy), bwrap (read-only root, private "
                   "network reaching only the mock server), docker, podman, or an autocue.sandboxes entry point "
                   "(see docs/scale.md)")
    p.add_argument("--sandbox-image", metavar="IMAGE", help="container image of --sandbox docker|podman (it needs "
                   "python3 and the agent CLI)")
    p.add_argument("--terminal", metavar="WxH", help="terminal size, e.g. 100x30 (default: the scenario's "
                   "terminalRef, else 100x30)")
    p.add_argument("--speed", type=float, default=0.0, help="wall seconds per logical second (default 0: as fast "
                   "as synchronisation allows)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per scenario (default 60)")
    p.add_argument("--match", choices=("strict", "loose", "off"), default=None,
                   help="compare each model request with the one recorded for its reply (strict: fail it; loose: "
                        "report it; off: no comparison; default: the scenario's server.match)")
    from autocue.runner.launch import DEFAULT_SETTLE, SETTLE

    p.add_argument("--settle", type=float, default=None, help="seconds of quiet screen before each user or test "
                   f"event (default: {SETTLE['mock']:g} for --agent mock, the profile's settle for a real agent "
                   f"CLI, else {DEFAULT_SETTLE:g})")
    p.add_argument("--update-goldens", action="store_true", help="write or rewrite screenshot goldens (next to the "
                   "scenario, in goldens/: commit them)")
    p.add_argument("--ci", action=argparse.BooleanOptionalAction, default=None,
                   help="CI mode: a screenshot with no golden fails instead of writing one (default: on when the "
                        "CI variable is set to a true value)")
    p.add_argument("--out", default="autocue-runs", help="output dir: report.json, recordings, actual screens "
                   "(default ./autocue-runs)")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (with --merge-reports: the merged "
                   "JUnit file; the XML inputs follow the JSON ones)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--tags", metavar="T,...", help="only scenarios with one of these tags")
    p.add_argument("-k", dest="keyword", metavar="SUBSTRING", help="only scenarios whose name contains it")
    p.add_argument("--keep", action="store_true", help="keep every workspace (failed runs keep theirs anyway)")
    p.add_argument("-j", dest="jobs", type=int, default=1, metavar="N", help="run N scenarios at once")
    p.add_argument("--shard", metavar="I/N", help="run the I-th of N stable slices of the selection")
    p.add_argument("--autocue-coverage", nargs="?", const="autocue-coverage.json", default=None, metavar="PATH",
                   help="print what the run exercised (timeline events by kind, scripted replies served, declared "
                        "tools called, tool profiles) and write it as JSON to PATH (default autocue-coverage.json; "
                        "see 'Coverage' in docs/testing.md)")
    p.add_argument("--autocue-coverage-fail-under", type=float, default=None, metavar="N",
                   help="exit 1 when the coverage (replies served + declared tools called, in percent of scripted "
                        "replies + declared tools) is under N; implies --autocue-coverage")
    add_otel_options(p)
    p.add_argument("--merge-reports", action="store_true",
                   help="combine the JSON reports (and JUnit files, and --job directories) given as paths instead "
                        "of running")
    jobs = p.add_argument_group("jobs and matrices (docs/scale.md)")
    jobs.add_argument("--job", metavar="DIR", help="a resumable job: one result file per cell in DIR, written as each "
                      "finishes; run again with the same DIR to run only the cells without a result")
    jobs.add_argument("--retry", type=int, default=0, metavar="N", help="run a cell again up to N times when it "
                      "failed only with --retry-on kinds (the report keeps every attempt)")
    jobs.add_argument("--retry-on", default="setup,timeout,infra", metavar="KINDS",
                      help="failure kinds --retry retries: setup, timeout, infra (default: all three; assert, golden "
                           "and the other failures of the scenario are never retried)")
    jobs.add_argument("--deadline", metavar="SECONDS|ISO", help="start no cell after this (seconds from now, or an "
                      "ISO 8601 time); the cells not run are listed as not run")
    jobs.add_argument("--deadline-kill", action="store_true", help="stop the cells still running at the deadline "
                      "(listed as not run) instead of letting them finish within --timeout")
    jobs.add_argument("--matrix", metavar="FILE", help="a matrix file: scenario globs × agents × apis × modes, "
                      "less excludes (--agent a,b and --llm-api x,y are axes too)")
    jobs.add_argument("--list", action="store_true", help="print the cells (stable ids, one per line; with --json "
                      "a JSON array) instead of running them")
    jobs.add_argument("--durations", metavar="REPORT", help="a previous JSON report or job directory: --shard "
                      "splits the cells by their recorded durations (pytest-split's least-duration split)")
    return p


def _merge(args: argparse.Namespace) -> int:
    from autocue.runner.jobs import merge_paths
    from autocue.runner.report import ReportError, merge_junit

    paths = [Path(x) for x in args.paths]
    xml = [x for x in paths if x.suffix == ".xml"]
    reports = [x for x in paths if x.suffix != ".xml"]
    if not reports and not xml:
        return fail(PROG, "--merge-reports needs the report files to merge: autocue run --merge-reports A.json B.json")
    if xml and not args.junit:
        return fail(PROG, "JUnit files to merge need --junit MERGED.xml for the result")
    try:
        merged = merge_paths(reports)
        if xml:
            merge_junit(xml, Path(args.junit))
    except ReportError as e:
        return fail(PROG, str(e))
    if reports:
        print(json.dumps(merged))
    return 0 if not merged["failed"] else 1


def _shown(path: Path) -> str:
    """``path`` relative to the current directory when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _is_report(path: Path) -> bool:
    try:
        data = json.loads(path.read_bytes())
    except ValueError:
        return False
    return isinstance(data, dict) and isinstance(data.get("scenarios"), list)


def _write_report(data: dict[str, Any], path: Path) -> str:
    """Write the run's report for ``autocue view`` (never over a file that is not an autocue report); a
    note when it was not written."""
    try:
        if path.is_file() and not _is_report(path):
            return f"{path} is not a report of autocue run: left as it is (choose another --out for `autocue view`)"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        return f"{path}: report not written ({e.strerror or e})"
    return ""


def _interrupted(stop: Interrupt) -> str:
    """The one line of an interrupted run."""
    kept = f"workspace kept (--keep): {', '.join(stop.kept)}" if stop.kept else "temporary workspaces removed"
    return (f"interrupted by {signal.Signals(stop.signum or signal.SIGINT).name}: the running scenarios were stopped "
            f"(their programs' process groups killed); {kept}")


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.merge_reports:
        return _merge(args)
    from autocue.runner import RunOptions, collect, run_selected
    from autocue.runner.extras import parse_size
    from autocue.runner.interrupt import Interrupt, Interrupted
    from autocue.runner.options import VIAS, ci_from_env
    from autocue.runner.selection import parse_shard
    from autocue.scenario import ScenarioError

    bad = [v for v in (args.via or "").split(",") if v.strip() and v.strip() not in VIAS]
    if bad:
        return fail(PROG, f"--via {args.via}: {bad[0].strip()!r} is not a mode (choose from {', '.join(VIAS)})", 2)
    cells = _cell_run(args)
    if not args.paths and not (cells and args.matrix):
        return fail(PROG, "give scenario files or directories to run, e.g. autocue run examples/tui")
    if args.jobs < 1 or args.timeout <= 0 or args.speed < 0 or (args.settle or 0) < 0 or args.retry < 0:
        return fail(PROG, "-j must be 1 or more, --timeout more than 0, --speed, --settle and --retry 0 or more")
    try:
        terminal = parse_size(args.terminal) if args.terminal else None
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as e:
        return fail(PROG, str(e))
    tags = [t.strip() for t in (args.tags or "").split(",") if t.strip()]
    try:
        items = collect(args.paths, tags=tags, keyword=args.keyword, shard=None if cells else shard)
        if not items and shard is None and not cells:
            return fail(PROG, f"no scenario in {', '.join(args.paths)} matches"
                        f"{f' --tags {args.tags}' if tags else ''}{f' -k {args.keyword}' if args.keyword else ''}")
    except ScenarioError as e:
        return fail(PROG, str(e))
    options = RunOptions(agent=args.agent, cmd=args.cmd, terminal=terminal, speed=args.speed, timeout=args.timeout,
                         settle=args.settle, update_goldens=args.update_goldens, out=Path(args.out), keep=args.keep,
                         jobs=args.jobs, agent_args=tuple(args.agent_args), agents_files=tuple(args.agents_files),
                         llm_api=args.llm_api, via=args.via, match=args.match,
                         ci=ci_from_env() if args.ci is None else args.ci,
                         sandbox=args.sandbox, sandbox_image=args.sandbox_image)
    from autocue.isolation import IsolationError, find

    try:
        why = find(args.sandbox).unavailable()
    except IsolationError as e:
        return fail(PROG, str(e))
    if why is not None:
        return fail(PROG, f"--sandbox {args.sandbox}: {why}")
    coverage = args.autocue_coverage or ("autocue-coverage.json" if args.autocue_coverage_fail_under is not None
                                         else None)
    if coverage is not None and not args.list:
        from autocue import suite_coverage

        suite_coverage.enable(fresh=True)
    if start_otel(PROG, args, "autocue-run"):
        return 2
    if cells:
        try:
            return _run_cells(args, items, options, shard, tags, coverage)
        finally:
            from autocue import telemetry

            telemetry.shutdown()  # every span exported before the exit
    stop = Interrupt()
    try:
        with stop.handling():
            report = run_selected(items, options, stop)
    except Interrupted:
        pass
    finally:
        from autocue import telemetry

        telemetry.shutdown()  # every span exported before the exit
    if stop.signum is not None:
        return fail(PROG, _interrupted(stop), stop.exit_code)
    return _finish(args, report, coverage)


def _via(args: argparse.Namespace) -> str | None:
    """``--via`` (the mode flag, when this autocue has it) as given, None when left at its default."""
    via = getattr(args, "via", None)
    return None if via is None or via == parser().get_default("via") else str(via)


def _cell_run(args: argparse.Namespace) -> bool:
    """Whether this run is a run of cells (``autocue.runner.jobs``) rather than of scenarios."""
    axes = (args.agent, args.llm_api, _via(args))
    return bool(args.job or args.matrix or args.list or args.retry or args.deadline or args.durations
                or any("," in (a or "") for a in axes))


def _plan_cells(args: argparse.Namespace, items: list[Any], tags: list[str],
                shard: tuple[int, int] | None) -> list[Cell]:
    """The cells of the paths and the matrix file, less a shard's (raises ``MatrixError``, ``ScenarioError``,
    ``ReportError``)."""
    from autocue.runner import collect
    from autocue.runner.errors import MatrixError
    from autocue.runner.jobs import durations_of
    from autocue.runner.matrix import axis, cells_of, load_matrix, split

    agents, apis, vias = axis(args.agent), axis(args.llm_api), axis(_via(args))
    exclude: list[dict[str, str]] = []
    if args.matrix:
        m = load_matrix(args.matrix)
        for name, flag, given, listed in (("agents", "--agent", agents, m.agents), ("apis", "--llm-api", apis, m.apis),
                                          ("modes", "--via", vias, m.vias)):
            if given != [None] and listed != [None]:
                raise MatrixError(f"{m.file}: the matrix lists {name} and {flag} gives them too: keep one")
        agents = agents if agents != [None] else m.agents
        apis = apis if apis != [None] else m.apis
        vias = vias if vias != [None] else m.vias
        exclude = m.exclude
        seen = {id(x.scenario) for x in items}
        items = items + [x for x in collect(m.scenarios, tags=tags, keyword=args.keyword) if id(x.scenario) not in seen]
    if args.cmd and agents != [None]:
        raise MatrixError("--cmd runs one program: give agents (--agent a,b or the matrix's agents) without --cmd")
    cells = cells_of(items, agents=agents, apis=apis, vias=vias, exclude=exclude)
    if shard is not None:
        cells = split(cells, shard[1], durations_of(args.durations) if args.durations else None)[shard[0] - 1]
    return cells


def _run_cells(args: argparse.Namespace, items: list[Any], options: RunOptions, shard: tuple[int, int] | None,
               tags: list[str], coverage: str | None) -> int:
    """A run of cells: ``--list``, or run them (``--job``, ``--retry``, ``--deadline``)."""
    from autocue.runner.errors import JobError, MatrixError, ReportError
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.jobs import Plan, parse_deadline, parse_retry_on, run_cells
    from autocue.runner.matrix import list_lines
    from autocue.scenario import ScenarioError

    try:
        cells = _plan_cells(args, items, tags, shard)
        plan = Plan(job=Path(args.job) if args.job else None, retry=args.retry, retry_on=parse_retry_on(args.retry_on),
                    deadline=parse_deadline(args.deadline) if args.deadline else None,
                    kill_at_deadline=args.deadline_kill)
    except (MatrixError, ScenarioError, ReportError, ValueError) as e:
        return fail(PROG, str(e))
    if args.list:
        if cells:
            print(list_lines(cells, args.json))
        elif args.json:
            print("[]")
        return 0
    if not cells and shard is None:
        return fail(PROG, "no cell to run: the matrix and the filters leave none")
    stop = Interrupt()
    try:
        with stop.handling():
            report = run_cells(cells, options, plan, stop)
    except JobError as e:
        return fail(PROG, str(e))
    if plan.skipped and not args.json:
        print(f"job {args.job}: {len(plan.skipped)} of {len(cells)} cells already have a result (not run again)")
    if stop.signum is not None:
        if args.job:
            _write_report(report.to_json(), Path(args.out) / "report.json")
        return fail(PROG, _interrupted(stop) + (f"; the finished cells are in {args.job}: run the same command to "
                                                "resume" if args.job else ""), stop.exit_code)
    return _finish(args, report, coverage)


def _finish(args: argparse.Namespace, report: RunReport, coverage: str | None) -> int:
    """Write and print the report of a run; the exit code."""
    if args.junit:
        report.write_junit(Path(args.junit))
    note = _write_report(report.to_json(), Path(args.out) / "report.json")
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        for s in report.scenarios:
            print(f"{'PASS' if s.passed else 'FAIL'} {s.name} ({s.duration_s:.2f}s{s.ended_note}) {s.file}")
            if s.attempts:
                print(f"  attempt {len(s.attempts) + 1}; earlier: "
                      + "; ".join(", ".join(f["kind"] for f in a.get("failures") or ()) for a in s.attempts))
            for w in s.warnings:
                print(f"  warning: {w}")
            for f in s.failures:
                print(f"  {f.line()}")
                if f.detail and f.kind == "golden":
                    print("    " + f.detail.rstrip().replace("\n", "\n    "))
            for g in s.goldens:
                if g.status in ("new", "updated"):
                    print(f"  golden {'written' if g.status == 'new' else 'updated'}: {_shown(g.golden)} (commit it)")
            for line in s.diagnostics:
                print(f"  {line}")
            if s.diagnostics:
                print("  last screen:")
                print("\n".join("    | " + x for x in (s.last_screen or "(empty)").splitlines()))
            if s.workspace and not s.passed:
                print(f"  workspace kept: {s.workspace}")
            if not s.passed and s.out_dir:
                acp = Path(s.out_dir) / "acp.jsonl"
                print(f"  recording: {acp if acp.exists() else f'{s.out_dir}/session.cast'}")
        for n in report.not_run:
            print(f"NOT RUN {n['name']} ({n['reason']}) {n['cell']}")
        print(report.summary())
    if note:
        print(f"{PROG}: {note}", file=sys.stderr)
    under = _coverage(coverage, args.autocue_coverage_fail_under, sys.stderr if args.json else sys.stdout)
    if any(f.kind == "setup" for s in report.scenarios for f in s.failures):
        return 2
    return 0 if report.ok and not under else 1


def _coverage(path: str | None, minimum: float | None, out: Any) -> bool:
    """``--autocue-coverage``: merge, write and print the run's coverage; whether it is under ``minimum``."""
    if path is None:
        return False
    import shutil

    from autocue import suite_coverage
    from autocue.scenario.events import kind_keys

    collector = suite_coverage.COLLECTOR
    report = suite_coverage.collect(kind_keys())
    if collector is not None:
        collector.written = True
        shutil.rmtree(collector.folder, ignore_errors=True)
    suite_coverage.disable()
    written = suite_coverage.write_report(report, path)
    for line in suite_coverage.summary(report):
        print(line, file=out)
    print(f"autocue coverage written to {written}", file=out)
    failed = suite_coverage.fails_under(report, minimum)
    if failed is not None:
        print(f"{PROG}: {failed}", file=out)
    return failed is not None
