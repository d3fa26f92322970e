"""``autocue loop [-c autocue.loop.yml] [PROMPT]``: run the hat-based orchestrator loop.

The backend's output streams to stdout/stderr, one status line per iteration goes to stderr,
and the session is recorded to ``.autocue/session.jsonl`` (``--record-session`` to move it).
The exit code is the termination reason's: 0 CompletionPromise, 2 MaxIterations/MaxRuntime,
1 ConsecutiveFailures/LoopStale/ValidationFailure, 130 Interrupted (SIGINT/SIGTERM); 2 also
for a configuration error.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from autocue.cli.args import CliParser, fail, one_line, positive_float, positive_int

DEFAULT_CONFIGS = ("autocue.loop.yml", "autocue.loop.yaml")


def _parser() -> argparse.ArgumentParser:
    p = CliParser(prog="autocue loop", description="Run the hat-based orchestrator loop.")
    p.add_argument("prompt", nargs="?", help="the task (default: event_loop.prompt, or PROMPT.md)")
    p.add_argument("-c", "--config", help="loop config (default: ./autocue.loop.yml)")
    p.add_argument("-C", "--workspace", help="directory the loop works in (default: current directory)")
    p.add_argument("--max-iterations", type=positive_int, help="override event_loop.max_iterations")
    p.add_argument("--max-runtime", type=positive_float, metavar="SECONDS",
                   help="override event_loop.max_runtime_seconds")
    p.add_argument("--record-session", help="session file (default: <workspace>/.autocue/session.jsonl)")
    p.add_argument("--no-record", action="store_true", help="do not write a session file")
    p.add_argument("-q", "--quiet", action="store_true", help="no status lines, no backend output echo")
    p.add_argument("--json", action="store_true", help="print the run result as JSON on stdout at the end")
    return p


def _path_problem(workspace: Path, session: Path | None, record_session: str | None) -> str | None:
    """Why the workspace or the session file cannot be used (they are created when missing)."""
    if workspace.exists() and not workspace.is_dir():
        return f"-C {workspace}: not a directory; give the directory the loop works in"
    if session is None:
        return None
    option = f"--record-session {record_session}" if record_session else f"session file {session}"
    if session.is_dir():
        return f"{option}: is a directory; give a file path (or --no-record)"
    blocked = next((d for d in session.absolute().parents if d.exists()), None)
    if blocked is not None and not blocked.is_dir():
        return f"{option}: {blocked} is a file, not a directory"
    return None


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from autocue.loop import EventLoop, LoopConfigError, load_config
    from autocue.loop.safe_files import UnsafeFileError

    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    session: Path | None = None if args.no_record else (
        Path(args.record_session) if args.record_session else workspace / ".autocue" / "session.jsonl"
    )
    problem = _path_problem(workspace, session, args.record_session)
    if problem:
        return fail("autocue loop", problem)
    cfg_path = Path(args.config) if args.config else next(
        (workspace / name for name in DEFAULT_CONFIGS if (workspace / name).is_file()), None)
    if cfg_path is None:
        return fail("autocue loop", f"no config: pass -c FILE or create {DEFAULT_CONFIGS[0]} in {workspace} "
                    "(see docs/orchestrator.md and examples/loop/)")
    try:
        cfg = load_config(cfg_path)
        if args.max_iterations is not None:
            cfg.event_loop.max_iterations = args.max_iterations
        if args.max_runtime is not None:
            cfg.event_loop.max_runtime_seconds = args.max_runtime
        for w in cfg.warnings:
            print(f"autocue loop: warning: {w}", file=sys.stderr)
        cfg.warnings.clear()
        quiet = args.quiet or args.json

        def echo(data: bytes, is_stdout: bool) -> None:
            stream = sys.stdout if is_stdout else sys.stderr
            stream.buffer.write(data)
            stream.flush()

        def status(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

        loop = EventLoop(
            cfg, prompt=args.prompt, workspace=workspace, session_path=session,
            on_output=None if quiet else echo, on_status=None if args.quiet else status,
        )
    except LoopConfigError as e:
        return fail("autocue loop", one_line(str(e)))

    async def run() -> int:
        ev = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            ev.add_signal_handler(sig, loop.interrupt)
        result = await loop.run()
        for w in result.warnings:
            print(f"autocue loop: warning: {w}", file=sys.stderr)
        if result.error:
            print(f"autocue loop: {result.error}", file=sys.stderr)
        if args.json:
            import orjson

            sys.stdout.buffer.write(orjson.dumps(result.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
        return result.exit_code

    try:
        return asyncio.run(run())
    except UnsafeFileError as e:  # a link or FIFO planted where the loop writes its run data
        return fail("autocue loop", str(e), 1)
