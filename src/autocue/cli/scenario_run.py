"""``autocue scenario run FILE_OR_DIR... [--profile NAME] [-v]``: play scenarios in-process.

Each scenario runs through a ``TestSession`` (``run_scenario``): real tools in a temp dir,
assert steps evaluated between replies. Prints one line per scenario (and the transcript with
``-v`` or on failure); exits 1 when any scenario fails.
"""

from __future__ import annotations

from pathlib import Path

from autocue.cli.args import CliParser
from autocue.scenario import ScenarioError, load_scenarios
from autocue.testing.errors import HarnessError
from autocue.testing.scenario_runner import run_scenario


def main(argv: list[str]) -> int:
    ap = CliParser(prog="autocue scenario run", description=__doc__)
    ap.add_argument("paths", nargs="+", help="scenario files or directories")
    ap.add_argument("--profile", default="autocue", help="tool profile mapping scenario tools to the agent's")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every transcript")
    args = ap.parse_args(argv)
    failed = passed = 0
    for p in args.paths:
        try:
            scenarios = load_scenarios(Path(p))
        except (ScenarioError, OSError) as e:
            print(f"ERROR {p}: {e}")
            failed += 1
            continue
        if not scenarios:
            print(f"ERROR {p}: no scenario files (*.yaml, *.yml) here")
            failed += 1
            continue
        for sc in scenarios:
            try:
                run = run_scenario(sc, profile=args.profile)
            except HarnessError as e:
                failed += 1
                print(f"FAIL {sc.name}: {type(e).__name__}")
                print("  " + str(e).replace("\n", "\n  "))
                continue
            passed += 1
            print(f"PASS {sc.name}: {run.summary()}")
            if args.verbose:
                print("  " + run.session.transcript().replace("\n", "\n  "))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
