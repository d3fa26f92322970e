"""``autocue scenario run FILE_OR_DIR... [--profile NAME] [--mock-tool NAME=RESULT]... [-e FILE]... [-v]``:
play scenarios in-process.

Each scenario runs through a ``TestSession`` (``run_scenario``): autocue's own agent, real tools in
a temp dir, assert steps evaluated between replies. ``--mock-tool NAME=RESULT`` answers every call
of tool NAME (the scenario's name or the agent's) with the text RESULT; ``-e FILE`` loads an
extension (its tools and hooks run for real). Prints one line per scenario (and the transcript
with ``-v`` or on failure); exits 1 when any scenario fails. A terminal program (another agent
CLI, a TUI) is tested with ``autocue run`` instead.
"""

from __future__ import annotations

from pathlib import Path

from autocue.cli.args import CliParser, fail
from autocue.scenario import ScenarioError, load_scenarios
from autocue.testing.errors import HarnessError
from autocue.testing.scenario_runner import run_scenario

PROG = "autocue scenario run"


def _advice(name: str) -> str:
    """What an ``UnknownToolError`` under this command says to do: its own flags, not Python's keywords."""
    return (f"Mock it with --mock-tool {name}=RESULT, or load the extension that registers it with "
            "-e FILE (--extension).")


def main(argv: list[str]) -> int:
    ap = CliParser(prog=PROG, description=__doc__)
    ap.add_argument("paths", nargs="+", help="scenario files or directories")
    ap.add_argument("--profile", default="autocue", help="tool profile mapping scenario tools to the agent's")
    ap.add_argument("--mock-tool", dest="mock_tools", action="append", default=[], metavar="NAME=RESULT",
                    help="answer every call of tool NAME with the text RESULT instead of running it (repeatable)")
    ap.add_argument("-e", "--extension", dest="extensions", action="append", default=[], metavar="FILE",
                    help="load an extension file (its tools and hooks run for real; repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every transcript")
    args = ap.parse_args(argv)
    from autocue.scenario.profiles import get_profile

    try:
        profile = get_profile(args.profile)
    except ValueError as e:
        return fail(PROG, f"--profile: {e}")
    mocks: dict[str, str] = {}
    for spec in args.mock_tools:
        name, eq, result = spec.partition("=")
        if not eq or not name.strip():
            return fail(PROG, f"--mock-tool {spec!r}: expected NAME=RESULT, e.g. --mock-tool 'get_weather=sunny, 21 C'")
        mocks[profile.agent_tool_name(name.strip())] = result
    extensions: list[str] = []
    for ext in args.extensions:
        path = Path(ext)
        if not path.is_file():
            return fail(PROG, f"-e {ext}: no such extension file" + (" (it is a directory)" if path.is_dir() else ""))
        extensions.append(str(path.resolve()))
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
                run = run_scenario(sc, profile=args.profile, mock_tools=mocks, extensions=extensions,
                                   unknown_tool_advice=_advice)
            except HarnessError as e:
                failed += 1
                print(f"FAIL {sc.name}: {type(e).__name__}")
                print("  " + str(e).replace("\n", "\n  "))
                if e.transcript:
                    print("  transcript:\n    " + e.transcript.replace("\n", "\n    "))
                continue
            passed += 1
            print(f"PASS {sc.name}: {run.summary()}")
            if args.verbose:
                print("  " + run.session.transcript().replace("\n", "\n  "))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
