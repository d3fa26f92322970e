"""``autocue scenario``: ``schema`` prints the JSON Schema; ``check FILE_OR_DIR...`` validates.

``check`` loads and compiles every file, prints each warning as ``file:line:col: path: message``
and each error the same way, then a one-line summary per file; it exits 1 when any file has
an error (``--strict`` also fails, exit 1, on any warning: unknown keys, a timeline with no
``llmResponse`` and so 0 scripted replies, ...). ``run`` belongs to the in-process harness and
says so until it is installed.
"""

from __future__ import annotations

import argparse
import json
import sys

from autocue.cli.args import CliParser

USAGE = "usage: autocue scenario {schema,check,run} ..."


def _parser() -> argparse.ArgumentParser:
    p = CliParser(prog="autocue scenario", description="Check scenario files or print their JSON Schema.")
    sub = p.add_subparsers(dest="cmd", metavar="{schema,check,run}")
    s = sub.add_parser("schema", help="print the JSON Schema of scenario files (for editors)")
    s.add_argument("--indent", type=int, default=2, help="indentation (0 for one line)")
    c = sub.add_parser("check", help="validate scenario files; exit 1 on errors")
    c.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    c.add_argument("--strict", action="store_true", help="also fail on warnings")
    c.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    sub.add_parser("run", help="play a scenario in-process (provided by autocue.testing)", add_help=False)
    return p


def _check(paths: list[str], strict: bool, quiet: bool) -> int:
    from autocue.scenario import ScenarioError, load_scenario_texts, read_scenario_file, scenario_files

    failed = 0
    files = 0
    for raw in paths:
        found = scenario_files(raw)
        if not found:
            print(f"{raw}: no *.yaml or *.yml files here", file=sys.stderr)
            failed += 1
        for f in found:
            files += 1
            try:
                text = read_scenario_file(f)
                docs = load_scenario_texts(text, str(f))
                steps = 0
                for sc in docs:
                    for w in sc.warnings:
                        print(f"warning: {w}")
                    steps += sc.compile().step_count
            except ScenarioError as e:
                print(f"error: {e}", file=sys.stderr)
                failed += 1
                continue
            except OSError as e:
                print(f"error: {f}: {e.strerror or e}", file=sys.stderr)
                failed += 1
                continue
            nwarn = sum(len(sc.warnings) for sc in docs)
            names = ", ".join(sc.name for sc in docs)
            if strict and nwarn:
                failed += 1
                print(f"error: {f}: {names}: {nwarn} warning(s), which --strict counts as errors", file=sys.stderr)
            elif not quiet:
                print(f"ok: {f}: {names} ({steps} scripted replies, {nwarn} warning(s))")
    if not quiet or failed:
        print(f"{files} file(s) checked, {failed} failed", file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv and argv[0] == "run":
        from autocue.cli.scenario_run import main as run_main

        return run_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.cmd == "schema":
        from autocue.scenario import scenario_json_schema

        indent = args.indent or None
        print(json.dumps(scenario_json_schema(), indent=indent))
        return 0
    if args.cmd == "check":
        return _check(args.paths, args.strict, args.quiet)
    print(USAGE, file=sys.stderr)
    return 2
