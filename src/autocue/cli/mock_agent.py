"""``autocue mock-agent``: a deterministic agent CLI that plays a scenario (see autocue.runner.mockagent).

    autocue mock-agent SCENARIO [--scenario NAME] [--checkpoint-cmd CMD] [--format FMT] [--cwd DIR]
    autocue mock-agent --plan PLAN.json ...      (what ``autocue run --agent mock`` starts)
    autocue mock-agent --format acp SCENARIO [--ask-permission TOOL]   (= ``autocue acp-agent``)

``--format acp`` serves the scenario as an ACP agent on stdin/stdout (autocue.runner.acp_agent):
exit 0 at the end of its input.

Exit 0 when every tool result, status and edit matched the scenario, 1 when one did not,
2 on a usage or scenario error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from autocue.cli.args import fail

PROG = "autocue mock-agent"


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    from autocue.runner.mockformats import FORMATS

    p = argparse.ArgumentParser(prog=prog, description="Play a scenario as a deterministic agent: print its "
                                "replies, run its tools for real, check their results.")
    p.add_argument("scenario", metavar="SCENARIO", nargs="?", help="scenario YAML file")
    p.add_argument("--plan", metavar="FILE", help="play a plan autocue run wrote (JSON) instead of a scenario")
    p.add_argument("--scenario", dest="name", metavar="NAME", help="which scenario of a multi-document file")
    p.add_argument("--checkpoint-cmd", metavar="CMD", help="shell command run after each tool call and edit")
    p.add_argument("--format", default="text", choices=(*FORMATS, "acp"),
                   help="output format (default text); acp: serve the scenario as an ACP agent on stdio")
    p.add_argument("--ask-permission", metavar="TOOL", action="append", default=[],
                   help="(--format acp) ask the client's permission before each call of TOOL (a scenario tool "
                   "name such as runCmd, or all); repeatable")
    p.add_argument("--cwd", metavar="DIR", help="workspace (default: the current directory)")
    p.add_argument("prompt", nargs="*", help=argparse.SUPPRESS)  # accepted (and ignored) as agent CLIs take one
    return p


def main(argv: list[str], prog: str = PROG) -> int:
    args = parser(prog).parse_args(argv)
    args.prog = prog
    cwd = Path(args.cwd) if args.cwd else Path.cwd()
    if not cwd.is_dir():
        return fail(prog, f"--cwd {args.cwd}: no such directory")
    if args.plan:
        import json

        try:
            plan = json.loads(Path(args.plan).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            return fail(prog, f"--plan {args.plan}: {e}")
        return _play(plan, args, cwd)
    if not args.scenario:
        return fail(prog, f"give a scenario file: {prog} SCENARIO")
    from autocue.runner.mockplan import plan_from_scenario
    from autocue.scenario import ScenarioError, load_scenarios

    try:
        scenarios = load_scenarios(args.scenario)
    except ScenarioError as e:
        return fail(prog, str(e))
    if args.name is not None:
        scenarios = [s for s in scenarios if s.name == args.name]
    if len(scenarios) != 1:
        what = f"no scenario named {args.name!r}" if args.name is not None else f"{len(scenarios)} scenarios"
        return fail(prog, f"{args.scenario}: {what}: pass --scenario NAME to pick one")
    if args.format == "acp":
        from autocue.runner.acp_agent import acp_plan

        try:
            plan = acp_plan(scenarios[0])
        except ValueError as e:
            return fail(prog, f"{args.scenario}: {e}")
        return _play(plan, args, cwd)
    return _play(plan_from_scenario(scenarios[0]), args, cwd)


def _play(plan: dict[str, Any], args: argparse.Namespace, cwd: Path) -> int:
    if args.format == "acp":
        from autocue.runner.acp_agent import main_acp_agent

        return main_acp_agent(plan, ask=frozenset(args.ask_permission))
    from autocue.runner.mockagent import main_mock_agent

    try:
        return main_mock_agent(plan, fmt=args.format, checkpoint_cmd=args.checkpoint_cmd, cwd=cwd)
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
