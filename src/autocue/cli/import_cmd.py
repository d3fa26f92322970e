"""``autocue import atif FILE [-o SCENARIO]``: an ATIF trajectory as a scenario to replay.

    autocue import atif trajectory.json -o hello.yaml
    autocue run hello.yaml --agent autocue

Each agent step becomes a scripted reply with its text, reasoning and tool calls; the first user
step is ``initialPrompt``, a later one a ``userInputs`` turn. ``--tools autocue`` (the default)
maps the tools of Harbor's agents (terminus' ``bash_command``, OpenHands' ``execute_bash`` and
``str_replace_editor``, ...) onto autocue's built-in tools, so ``autocue run --agent autocue``
runs them for real; ``--tools raw`` keeps every call as the trajectory names it. Paths under
``--root`` (default ``/app``) become relative to the workspace. See docs/traces.md.
Exit status: 0 written, 2 a trajectory that cannot be read (one line: FILE: JSON.PATH: what).
"""

from __future__ import annotations

import sys
from pathlib import Path

from autocue.cli.args import CliParser, fail, one_line


def parser() -> CliParser:
    p = CliParser(prog="autocue import", description=__doc__)
    p.add_argument("format", choices=["atif"], help="the trace format of FILE")
    p.add_argument("file", metavar="FILE", help="the trajectory (JSON)")
    p.add_argument("-o", "--output", metavar="SCENARIO", help="write the scenario here (default: stdout)")
    p.add_argument("--tools", choices=["autocue", "raw"], default="autocue",
                   help="map tool calls onto autocue's tools (default) or keep them as named")
    p.add_argument("--root", default="/app", help="the trajectory's working folder: paths under it become "
                   "relative (default /app; '' keeps paths as they are)")
    p.add_argument("--name", help="the scenario's name (default: the trajectory's session_id)")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from autocue.scenario import ScenarioError, load_scenario_text
    from autocue.traces import TraceError, import_atif

    try:
        imported = import_atif(args.file, tools=args.tools, root=args.root, name=args.name)
    except TraceError as e:
        return fail("autocue import", one_line(str(e)))
    target = args.output or "<stdout>"
    try:
        load_scenario_text(imported.text, target)
    except ScenarioError as e:  # the importer writes what the loader reads: this is a bug, said in one line
        return fail("autocue import", f"the scenario made from {args.file} does not load: {one_line(str(e))}")
    if args.output is None:
        sys.stdout.write(imported.text)
    else:
        try:
            Path(args.output).write_text(imported.text, "utf-8")
        except OSError as e:
            return fail("autocue import", f"{args.output}: {e.strerror or e}")
        print(f"wrote {args.output}: {imported.replies} replies, {imported.tool_calls} tool calls", file=sys.stderr)
    for note in imported.notes:
        print(f"  note: {note}", file=sys.stderr)
    return 0
