"""``autocue diff A.yaml B.yaml``: compare two recordings structurally and classify the drift.

    autocue diff A.yaml B.yaml [--json]

Pairs the two scenarios' turns and replies in order and prints each difference, classified
as benign (ids, timing, usage, model name, an error's wording) or a regression (a prompt, the
text or thinking of a reply, its tool calls, their order, a stop reason, an error, a reply
more or fewer). The first line is the verdict: ``identical``, ``benign`` or ``regression``.
``--json`` prints ``{"class", "regressions", "benign", "differences", "steps"}`` instead.
Exit status: 0 identical or benign, 1 regression, 2 a file that cannot be read.
"""

from __future__ import annotations

import sys

import orjson

from autocue.cli.args import CliParser, fail, one_line


def parser() -> CliParser:
    p = CliParser(prog="autocue diff", description=__doc__)
    p.add_argument("a", metavar="A.yaml", help="the reference recording (a scenario file)")
    p.add_argument("b", metavar="B.yaml", help="the recording to compare with it")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from autocue.scenario import ScenarioError, load_scenario
    from autocue.scenario.drift import diff_scenarios

    try:
        a, b = load_scenario(args.a), load_scenario(args.b)
    except ScenarioError as e:
        return fail("autocue diff", one_line(str(e)))
    except OSError as e:
        return fail("autocue diff", f"{e.filename}: {e.strerror or e}")
    report = diff_scenarios(a, b)
    if args.json:
        sys.stdout.write(orjson.dumps(report.to_json(), default=str).decode() + "\n")
    else:
        n = len(report.regressions)
        print(f"{args.a} → {args.b}: {report.verdict} ({n} regression(s), {len(report.differences) - n} benign "
              f"difference(s), {len(report.steps)} replies compared)")
        for d in report.differences:
            print("  " + d.describe())
    return 1 if report.verdict == "regression" else 0
