"""``autocue mcp``: serve the orchestrator loop's checks (``autocue.checks``) over MCP on stdio.

Options: ``--root DIR`` (workspace root; default ``$AUTOCUE_CHECKS_ROOT`` or the per-user
``<temp>/autocue-checks-<uid>``), ``--stale-after SECONDS`` (workspaces untouched that long
are deleted at start, only folders with the checks' marker; default 86400; 0 deletes them
all). Logs go to stderr; stdout is the
protocol.
"""

from __future__ import annotations

import os

from autocue.cli.args import CliParser, fail
from autocue.errors import MissingExtraError


def main(argv: list[str]) -> int:
    p = CliParser(prog="autocue mcp", description="Serve the orchestrator loop's checks over MCP (stdio).")
    p.add_argument("--root", help="workspace root directory")
    p.add_argument("--stale-after", type=float, default=None, help="delete workspaces idle this many seconds at start")
    args = p.parse_args(argv)
    try:
        from autocue.checks.mcp_server import STALE_AFTER_SECS, serve_stdio
    except MissingExtraError as e:
        return fail("autocue mcp", str(e))

    stale = STALE_AFTER_SECS if args.stale_after is None else args.stale_after
    if stale < 0:
        return fail("autocue mcp", "--stale-after must be >= 0")
    if args.root and os.path.exists(args.root) and not os.path.isdir(args.root):
        return fail("autocue mcp", f"--root {args.root}: is a file, not a directory")
    try:
        serve_stdio(args.root, stale)
    except KeyboardInterrupt:
        return 130
    return 0
