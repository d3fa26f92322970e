"""The ``autocue`` agent CLI: ``main(argv) -> int`` (the dispatcher in ``cli/main.py`` routes here).

::

    autocue -p "prompt"                 print the final answer (exit 1 on error/abort)
    autocue --mode json "prompt"        session header + every event as JSON lines
    autocue --mode rpc                  JSONL commands on stdin, responses/events on stdout
    autocue                             interactive line mode (stdin is a terminal)
    echo "prompt" | autocue             stdin that is not a terminal is the prompt (print mode)

Options: ``--model provider/model``, ``--extension PATH`` (repeatable), ``--tools a,b``
(allow-list; default: all seven built-ins and the extensions' tools; ``--no-tools`` for none),
``--system-prompt TEXT``, ``--no-session``, ``--session FILE``, ``--continue``, ``--thinking LEVEL``, ``--cwd DIR``,
``--playbook FILE`` (replies for ``autocue/playbook``: JSON, or a YAML scenario's), ``--no-discover``.

Models come from ``ModelRegistry`` (``$AUTOCUE_DIR/models.json``, ``.autocue/models.json``,
env overrides); MCP servers from ``$AUTOCUE_DIR/mcp.json`` and ``.autocue/mcp.json`` add their tools
(``mcp__server__tool``; failures are printed, never fatal; see docs/mcp.md); sessions are stored
under ``<autocue dir>/sessions/<cwd slug>/`` as pi v3 JSONL.
Everything heavy is imported inside ``main`` so ``autocue --version`` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from autocue.cli.errors import CliError as CliError

DEFAULT_SYSTEM_PROMPT = (
    "You are a coding agent working in {cwd}. Use the tools to read, search, change and run things; "
    "keep answers short and say what you did."
)


def _parser() -> Any:
    import argparse

    from autocue.cli.args import CliParser
    from autocue.cli.main import commands_help

    p = CliParser(
        prog="autocue",
        usage="autocue [options] [PROMPT ...]    run the agent\n       autocue COMMAND [args]           run a command",
        description="Run the autocue agent, or one of the commands below.",
        epilog=commands_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.add_argument("messages", nargs="*", metavar="PROMPT", help="prompt(s) to send, one after another")
    p.add_argument("-p", "--print", action="store_true", help="print the final answer and exit")
    p.add_argument("--mode", choices=("text", "json", "rpc"), default="text", help="output mode (default: text)")
    p.add_argument("--model", help="provider/model (or a model id one provider lists)")
    p.add_argument(
        "-e",
        "--extension",
        action="append",
        default=[],
        metavar="PATH",
        help="load an extension (file, directory or module); repeatable",
    )
    p.add_argument("--tools", help="comma-separated allow-list of active tools")
    p.add_argument("--no-tools", action="store_true", help="run without tools")
    p.add_argument("--system-prompt", help="replace the default system prompt")
    p.add_argument("--no-session", action="store_true", help="keep the session in memory only")
    p.add_argument("--session", metavar="FILE", help="use (or create) this session file")
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the most recent session of this directory",
    )
    p.add_argument("--thinking", metavar="LEVEL", help="off, minimal, low, medium, high or xhigh")
    p.add_argument("--cwd", help="working directory (default: the current one)")
    p.add_argument("--playbook", metavar="FILE",
                   help="scripted replies for the autocue/playbook model: a JSON list, or a YAML scenario file")
    p.add_argument(
        "--no-discover",
        action="store_true",
        help="do not discover extensions, skills and settings in .autocue/ and $AUTOCUE_DIR",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    return p


class _NoModelError(CliError):
    """No model to send the prompts to."""


def _taken_as_prompt(word: str) -> str:
    """For a first word that looks like a command (``autocue frobnicate``): say it went to the model."""
    import re

    from autocue.cli.main import SUBCOMMANDS

    if not re.fullmatch(r"[a-z][a-z0-9_-]*", word):
        return ""
    return (f" ({word!r} is not an autocue command, so it was taken as a prompt; commands: "
            f"{', '.join(SUBCOMMANDS)}; see autocue --help)")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.version:
        from autocue import __version__

        print(f"autocue {__version__}")
        return 0
    import asyncio

    try:
        return asyncio.run(_amain(args))
    except CliError as e:
        from autocue.cli.args import fail, one_line

        message = one_line(str(e))
        if isinstance(e, _NoModelError) and argv and args.messages and argv[0] == args.messages[0]:
            message += _taken_as_prompt(argv[0])
        return fail("autocue", message, 1)
    except KeyboardInterrupt:
        return 130


def _load_playbook(path: str) -> list[Any]:
    """The replies of a YAML scenario file (``.yaml`` / ``.yml``: its ``llmResponse`` steps, in
    order, tool calls mapped by the ``autocue`` tool profile; prompts and checks are not used), or of a JSON list
    ``[{"text"?, "thinking"?, "tool_calls"?: [{name, arguments, id?}], "error"?, "kind"?, "status"?}]``."""
    import json
    from pathlib import Path

    from autocue.llm.types import TextContent, ThinkingContent
    from autocue.scenario import SCENARIO_SUFFIXES, ScenarioError, apply_profile, load_scenario
    from autocue.script.model import ScriptedError, ScriptedResponse, ScriptedToolCall

    if Path(path).suffix in SCENARIO_SUFFIXES:
        try:
            # the scenario's tool names (readFile, runCmd, ...) become autocue's own (read, bash, ...)
            return apply_profile(load_scenario(path).compile(), "autocue").all_steps()
        except ScenarioError as e:
            raise CliError(f"--playbook {e}") from None
        except OSError as e:
            raise CliError(f"--playbook {path}: {e.strerror or e}") from None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise CliError(f"--playbook {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise CliError(f"--playbook {path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    if not isinstance(data, list):
        raise CliError(f"--playbook {path}: expected a JSON list of replies")
    steps: list[Any] = []
    for i, d in enumerate(data):
        where = f"--playbook {path}: reply [{i}]"
        if not isinstance(d, dict):
            raise CliError(f"{where}: must be an object with text, thinking, tool_calls or error")
        unknown = set(d) - {"text", "thinking", "tool_calls", "error", "kind", "status", "retry_after"}
        if unknown:
            raise CliError(f"{where}: unknown key(s) {sorted(unknown)}")
        if "error" in d:
            steps.append(
                ScriptedResponse(
                    error=ScriptedError(
                        str(d["error"]), d.get("kind", "error"), d.get("status"), d.get("retry_after")
                    )
                )
            )
            continue
        content: list[Any] = []
        if d.get("thinking"):
            content.append(ThinkingContent(str(d["thinking"])))
        if d.get("text"):
            content.append(TextContent(str(d["text"])))
        for j, c in enumerate(d.get("tool_calls") or []):
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise CliError(f"{where}.tool_calls[{j}]: needs a string 'name'")
            content.append(ScriptedToolCall(c["name"], dict(c.get("arguments") or {}), c.get("id")))
        steps.append(ScriptedResponse(content))
    return steps


def _session_manager(args: Any, cwd: str) -> Any:
    from pathlib import Path

    from autocue.session.errors import SessionFileError, SessionFileNotFoundError
    from autocue.session.manager import SessionManager

    try:
        if args.no_session:
            return SessionManager.in_memory(cwd)
        if args.session:
            parent = next((d for d in Path(args.session).absolute().parents if d.exists()), None)
            if parent is not None and not parent.is_dir():
                raise CliError(f"--session {args.session}: {parent} is a file, not a directory")
            try:
                return SessionManager.open(args.session)
            except SessionFileNotFoundError:  # --session means "use or create": create it, explicitly
                return SessionManager.create_at(args.session, cwd)
        if args.continue_:
            return SessionManager.continue_recent(cwd)
        return SessionManager.create(cwd)
    except SessionFileError as e:
        flag = "--session" if args.session else "--continue" if args.continue_ else None
        raise CliError(f"{flag}: {e.one_line()}" if flag else e.one_line()) from None
    except IsADirectoryError:
        raise CliError(f"--session {args.session}: is a directory; give a session file (.jsonl)") from None
    except OSError as e:
        where = "--session " + args.session if args.session else f"the session directory for {cwd}"
        raise CliError(f"{where}: {e.strerror or e}" + (f" ({e.filename})" if e.filename else "")) from None


async def _amain(args: Any) -> int:
    from autocue.llm.registry import ModelRegistry, ModelRegistryError
    from autocue.llm.stream import THINKING_LEVELS

    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    if not os.path.isdir(cwd):
        raise CliError(f"--cwd {args.cwd}: not a directory")
    if args.thinking is not None and args.thinking not in THINKING_LEVELS:
        raise CliError(f"--thinking {args.thinking}: use one of {', '.join(THINKING_LEVELS)}")
    mode = args.mode
    stdin_tty = sys.stdin.isatty()
    prompts: list[str] = list(args.messages)
    if mode == "rpc" and prompts:
        raise CliError("--mode rpc takes its prompts on stdin, not as arguments")
    if mode != "rpc" and not prompts and not stdin_tty:
        piped = sys.stdin.read()
        if piped.strip():
            prompts = [piped]
    interactive = mode == "text" and not args.print and stdin_tty and sys.stdout.isatty()
    if mode != "rpc" and not interactive and not prompts:
        raise CliError(
            'no prompt: give one as an argument (autocue -p "..."), pipe it on stdin, '
            "or run autocue in a terminal for the interactive mode"
        )

    try:
        registry = ModelRegistry(cwd=cwd)
    except ModelRegistryError as e:
        raise CliError(str(e)) from None
    if args.playbook:
        from autocue.script.provider import ScriptedProvider

        registry.register_api("scripted", ScriptedProvider(_load_playbook(args.playbook)))
    sm = _session_manager(args, cwd)
    try:
        model = _pick_model(args, registry, sm)
    except ModelRegistryError as e:
        raise CliError(str(e)) from None

    ui: Any = None
    if mode == "rpc":
        from autocue.modes.common import json_line
        from autocue.modes.rpc_ui import RpcUI

        out = sys.stdout.buffer

        def send(obj: Any) -> None:
            out.write(json_line(obj))
            out.flush()

        ui = RpcUI(send)
    elif interactive:
        from autocue.modes.interactive import TerminalUI

        ui = TerminalUI(sys.stdout)

    from autocue.tools import BUILTIN_TOOL_NAMES

    # all seven built-ins by default (pi's CLI starts with four): scenarios map listDir to ls, find to find
    active: list[str] = list(BUILTIN_TOOL_NAMES)
    if args.no_tools:
        active = []
    elif args.tools is not None:
        active = [t.strip() for t in args.tools.split(",") if t.strip()]
    system_prompt = args.system_prompt if args.system_prompt is not None else DEFAULT_SYSTEM_PROMPT.format(cwd=cwd)
    mcp = await _start_mcp(cwd, registry.agent_dir) if not args.no_discover else None
    try:
        return await _run_session(args, registry, model, sm, ui, mode, interactive, prompts, cwd, active,
                                  system_prompt, mcp)
    finally:
        if mcp is not None:
            await mcp.disconnect()


async def _start_mcp(cwd: str, agent_dir: Any) -> Any:
    """The MCP servers of ``mcp.json`` (none: no manager, and the SDK is not imported)."""
    from pathlib import Path

    if not any(p.is_file() for p in (Path(agent_dir) / "mcp.json", Path(cwd) / ".autocue" / "mcp.json")):
        return None
    from autocue.mcp import MCPManager
    from autocue.mcp.manager import DEFAULT_GRACE_PERIOD

    grace = os.environ.get("AUTOCUE_MCP_GRACE_MS", "")
    try:
        grace_period = float(grace) / 1000 if grace else DEFAULT_GRACE_PERIOD
    except ValueError:
        raise CliError(f"AUTOCUE_MCP_GRACE_MS={grace!r}: must be a number of milliseconds") from None
    manager = MCPManager(cwd=cwd, agent_dir=agent_dir, grace_period=grace_period)
    manager.add_failure_listener(lambda f: print(f"autocue: {f}", file=sys.stderr))
    await manager.discover_and_connect()
    return manager


async def _run_session(
    args: Any, registry: Any, model: Any, sm: Any, ui: Any, mode: str, interactive: bool, prompts: list[str],
    cwd: str, active: list[str], system_prompt: str, mcp: Any,
) -> int:
    from autocue.session.factory import create_agent_session
    from autocue.session.settings import SettingsError

    factories: list[Any] = []
    if mcp is not None:
        from autocue.mcp import mcp_extension

        factories.append(mcp_extension(mcp))
    try:
        result = await create_agent_session(
            provider=registry.router(),
            model=model,
            cwd=cwd,
            session_manager=sm,
            active_tools=active,
            extensions=list(args.extension),
            extension_factories=factories,
            discover=not args.no_discover,
            agent_dir=registry.agent_dir,
            ui=ui,
            has_ui=ui is not None,
            system_prompt=system_prompt,
            thinking_level=args.thinking,
            session_directory=not (args.session or args.no_session or args.continue_),
        )
    except SettingsError as e:
        raise CliError(str(e)) from None
    session = result.session
    for err in result.extensions_result.errors:
        print(f"Extension error ({err.path}): {type(err.error).__name__}: {err.error}", file=sys.stderr)
    if session.subagents is not None:  # an agent type's model pattern may pick any model the registry knows
        session.subagents.models = registry.models()
    for problem in session.diagnostics():
        print(f"autocue: skipped {problem}", file=sys.stderr)
    if active:
        known = {t.name for t in session.get_all_tools()}
        missing = [n for n in active if n not in known]
        if missing:
            await session.dispose()
            raise CliError(f"--tools: unknown tool(s) {', '.join(missing)}; available: {', '.join(sorted(known))}")
    try:
        if mode == "rpc":
            from autocue.modes.rpc_mode import run_rpc

            return await run_rpc(session, registry, ui, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer)
        if interactive:
            from autocue.modes.interactive import run_interactive

            color = "NO_COLOR" not in os.environ and os.environ.get("TERM", "") != "dumb"
            return await run_interactive(session, registry, out=sys.stdout, color=color, initial=prompts)
        from autocue.modes.print_mode import run_print

        code = await run_print(
            session, prompts, mode="json" if mode == "json" else "text", stdout=sys.stdout.buffer, stderr=sys.stderr
        )
        await session.dispose()
        return code
    finally:
        await registry.aclose()


def _pick_model(args: Any, registry: Any, sm: Any) -> Any:
    if args.model:
        return registry.find(args.model)
    if sm.get_entries():
        ctx = sm.build_session_context()
        if ctx.model is not None:
            with contextlib.suppress(ValueError):
                return registry.find(f"{ctx.model[0]}/{ctx.model[1]}")
    m = registry.resolve_default()
    if m is None:
        if args.playbook:
            return registry.find("autocue/playbook")
        raise _NoModelError(
            "no model selected: pass --model provider/model, set AUTOCUE_MODEL, or add default_model to "
            f"{registry.agent_dir / 'models.json'}"
        )
    return m


__all__ = ["main"]
