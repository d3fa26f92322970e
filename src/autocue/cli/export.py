"""``autocue export --atif INPUT [-o OUT]``: a session, a recording or a run as an ATIF trajectory.

    autocue export --atif session.jsonl -o trajectory.json
    autocue export --atif recordings/session-3f2a9c0d1b7e.yaml
    autocue export --atif autocue-runs/autocue/hello/100x30/20261128-150703-11919-x1

INPUT is a session file (``.jsonl``), a scenario file (a recording of ``autocue record`` or any
scenario, ``.yaml``), or a run folder of ``autocue run`` (a scenario's ``out_dir``, or a
``report.json`` of one scenario). The trajectory (ATIF-v1.6, Harbor's Agent Trajectory
Interchange Format) goes to OUT, or to stdout. See docs/traces.md.
Exit status: 0 written, 2 an input that cannot be read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from autocue.cli.args import CliParser, fail, one_line


def parser() -> CliParser:
    p = CliParser(prog="autocue export", description=__doc__)
    p.add_argument("--atif", metavar="INPUT", required=True,
                   help="a session file (.jsonl), a scenario or recording (.yaml), or a run folder of autocue run")
    p.add_argument("-o", "--output", metavar="OUT", help="write the trajectory here (default: stdout)")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from autocue.traces import TraceError, export_atif

    try:
        trajectory = export_atif(args.atif)
    except TraceError as e:
        return fail("autocue export", one_line(str(e)))
    text = json.dumps(trajectory, indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, "utf-8")
    except OSError as e:
        return fail("autocue export", f"{args.output}: {e.strerror or e}")
    steps = trajectory["steps"]
    calls = sum(len(s.get("tool_calls") or []) for s in steps)
    print(f"wrote {args.output}: {len(steps)} steps, {calls} tool calls ({trajectory['schema_version']})",
          file=sys.stderr)
    return 0
