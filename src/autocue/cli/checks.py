"""``autocue check <tool>``: the orchestrator loop's checks from the shell, JSON in, JSON out.

The checks are the test tools of ``autocue.checks``; ``autocue test`` is the old name of this
command (it still works, after one line on stderr).

Tools: ``setup``, ``run``, ``assert``, ``inspect``, ``cleanup``, ``mock-backend``, ``snapshot``,
``diff`` (and ``list``). Every tool takes ``--root DIR`` (default ``$AUTOCUE_CHECKS_ROOT`` or
``<temp>/autocue-checks-<uid>``, per user) and ``--params JSON`` (the tool's whole parameter object, as
in MCP; ``@file`` reads a file, ``-`` reads stdin); flags override single parameters. JSON
values may be given as ``@file`` too. State persists in the workspace, so separate
invocations chain: ``setup`` → ``mock-backend`` → ``run`` → ``assert``.

Exit codes: 0 done; 1 the tool failed (``{"error": {code, message, ...}}`` on stdout), an
assertion failed, or the run reported an ``error``; 2 usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from autocue.cli.args import CliParser, fail
from autocue.errors import AutocueError

TOOLS = ("setup", "run", "assert", "inspect", "cleanup", "mock-backend", "snapshot", "diff", "list")
POSITIONALS: dict[str, tuple[str, ...]] = {
    "setup": ("workspace_id",), "run": ("workspace_id", "task"), "assert": ("workspace_id", "assertions"),
    "inspect": ("workspace_id",), "cleanup": ("workspace_id",), "mock-backend": ("workspace_id", "responses"),
    "snapshot": ("workspace_id",), "diff": ("workspace_id", "baseline", "compare_to"), "list": (),
}


class _Usage(AutocueError):
    pass


def _json_value(text: str, what: str) -> Any:
    if text == "-":
        raw = sys.stdin.buffer.read()
    elif text.startswith("@"):
        try:
            raw = Path(text[1:]).read_bytes()
        except OSError as e:
            raise _Usage(f"{what}: cannot read {text[1:]}: {e.strerror or e}") from None
    else:
        raw = text.encode("utf-8")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise _Usage(f"{what}: invalid JSON ({e})") from None


def _pairs(items: list[str] | None, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _Usage(f"{what} expects KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def _parser() -> argparse.ArgumentParser:
    p = CliParser(prog="autocue check", description="The orchestrator loop's checks (JSON output).")
    sub = p.add_subparsers(dest="tool", required=True, metavar="TOOL")

    def tool(name: str, help_text: str, *, ws: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_text)
        sp.add_argument("--root", help="workspace root directory")
        sp.add_argument("--params", help="the whole parameter object as JSON (@file, - for stdin)")
        if ws:
            sp.add_argument("pos", nargs="*", metavar=" ".join(POSITIONALS[name]).upper() or "ARGS",
                            help="the workspace id, then: " + (", ".join(POSITIONALS[name][1:]) or "nothing"))
        return sp

    s = tool("setup", "create an isolated workspace")
    s.add_argument("--fixtures", help="JSON object path → content")
    s.add_argument("--fixture", action="append", metavar="PATH=CONTENT", help="one fixture file (repeatable)")
    s.add_argument("--config", help="loop config overrides as JSON")
    s.add_argument("--scratchpad", help="initial .agent/scratchpad.md content")
    r = tool("run", "run the loop in a workspace")
    r.add_argument("--backend", help="mock (default), command, agent, claude, gemini, kiro, ...")
    r.add_argument("--max-iterations", type=int)
    r.add_argument("--max-runtime-secs", type=float)
    r.add_argument("--env", action="append", metavar="KEY=VALUE", help="environment for the backend (repeatable)")
    r.add_argument("--mock-responses", help="JSON list of mock responses")
    a = tool("assert", "evaluate assertions on the last run")
    a.add_argument("--assertions", dest="assertions_opt", help="JSON list of assertions")
    i = tool("inspect", "read the recorded session")
    i.add_argument("--filter", help="JSON filter object")
    i.add_argument("--limit", type=int)
    i.add_argument("--format", choices=["json", "summary", "timeline"])
    c = tool("cleanup", "delete a workspace")
    c.add_argument("--preserve-session", action="store_true")
    m = tool("mock-backend", "configure mock responses")
    m.add_argument("--responses", dest="responses_opt", help="JSON list of mock responses")
    n = tool("snapshot", "capture the workspace files")
    n.add_argument("--include", action="append", metavar="GLOB")
    n.add_argument("--exclude", action="append", metavar="GLOB")
    d = tool("diff", "compare snapshots / the current state")
    d.add_argument("--baseline", dest="baseline_opt", help="snapshot id or 'initial'")
    d.add_argument("--compare-to")
    tool("list", "list the registered workspaces", ws=False)
    return p


def _params(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if args.params:
        v = _json_value(args.params, "--params")
        if not isinstance(v, dict):
            raise _Usage("--params must be a JSON object")
        params.update(v)
    t = args.tool
    pos = list(getattr(args, "pos", None) or [])
    names = POSITIONALS[t]
    if len(pos) > len(names):
        raise _Usage(f"{t}: too many arguments: {pos[len(names):]} (expected {', '.join(names) or 'none'})")
    given = dict(zip(names, pos, strict=False))
    if "workspace_id" in given:
        params["workspace_id"] = given["workspace_id"]
    args.task = given.get("task")
    args.assertions = given.get("assertions")
    args.responses = given.get("responses")
    args.baseline = given.get("baseline")
    if given.get("compare_to") and not getattr(args, "compare_to", None):
        args.compare_to = given["compare_to"]
    if t == "setup":
        fixtures = dict(params.get("fixtures") or {})
        if args.fixtures:
            given = _json_value(args.fixtures, "--fixtures")
            if not isinstance(given, dict):
                raise _Usage("--fixtures must be a JSON object of path → content")
            fixtures.update(given)
        fixtures.update(_pairs(args.fixture, "--fixture"))
        if fixtures:
            params["fixtures"] = fixtures
        if args.config:
            params["config"] = _json_value(args.config, "--config")
        if args.scratchpad is not None:
            params["scratchpad"] = args.scratchpad
    elif t == "run":
        if args.task is not None:
            params["task"] = args.task
        if args.max_runtime_secs is not None:
            rt = args.max_runtime_secs
            params["max_runtime_secs"] = int(rt) if float(rt).is_integer() else rt
        if args.env:
            params["env"] = {**(params.get("env") or {}), **_pairs(args.env, "--env")}
    for key, attrs, json_name in FLAGS.get(t, ()):
        value = next((v for v in (getattr(args, a) for a in attrs) if _given(v)), None)
        if value is not None:
            params[key] = _json_value(value, json_name) if json_name else value
    return params


FLAGS: dict[str, tuple[tuple[str, tuple[str, ...], str | None], ...]] = {
    "run": (("backend", ("backend",), None), ("max_iterations", ("max_iterations",), None),
            ("mock_responses", ("mock_responses",), "--mock-responses")),
    "assert": (("assertions", ("assertions_opt", "assertions"), "assertions"),),
    "inspect": (("filter", ("filter",), "--filter"), ("limit", ("limit",), None), ("format", ("format",), None)),
    "cleanup": (("preserve_session", ("preserve_session",), None),),
    "mock-backend": (("responses", ("responses_opt", "responses"), "responses"),),
    "snapshot": (("include_patterns", ("include",), None), ("exclude_patterns", ("exclude",), None)),
    "diff": (("baseline", ("baseline_opt", "baseline"), None), ("compare_to", ("compare_to",), None)),
}
"""A tool's parameters taken from its flags: ``(parameter, argparse attributes, JSON)``. The first
attribute given counts (an option before its positional); a value named in ``JSON`` is parsed as JSON."""


def _given(value: Any) -> bool:
    """Whether a flag was given: not left unset (None, False, an empty string or list); 0 counts."""
    return value is not None and value is not False and value != "" and value != []


REQUIRED = {tool: tuple(n for n in names if n != "compare_to") for tool, names in POSITIONALS.items()}


def _emit(obj: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    stray = [x for x in extra if x.startswith("-") and x != "-"]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    if extra:
        args.pos = [*(getattr(args, "pos", None) or []), *extra]
    from autocue.checks import TestToolError, TestTools

    try:
        params = _params(args)
        missing = [k for k in REQUIRED[args.tool] if k not in params]
        if missing:
            raise _Usage(f"autocue check {args.tool}: missing {', '.join(missing)}")
    except _Usage as e:
        return fail("autocue check", str(e))
    tools = TestTools(args.root)
    try:
        if args.tool == "list":
            result: dict[str, Any] = {"workspace_ids": tools.list_workspaces(), "root": str(tools.store.root)}
        else:
            result = getattr(tools, "test_" + args.tool.replace("-", "_"))(**params)
    except TestToolError as e:
        _emit(e.to_dict())
        return fail(f"autocue check {args.tool}", e.message, 1)
    except TypeError as e:
        return fail(f"autocue check {args.tool}", f"bad parameters: {e}")
    except OSError as e:  # e.g. a workspace file the agent made unreadable or undeletable, or a bad --root
        root = tools.store.root
        why = f"--root {root}: is a file, not a directory" if root.exists() and not root.is_dir() else (
            f"{e.filename}: {e.strerror or e}" if e.filename else str(e))
        _emit({"error": {"code": "os_error", "message": why}})
        return fail(f"autocue check {args.tool}", why, 1)
    _emit(result)
    for w in result.get("warnings", []) if isinstance(result, dict) else []:
        print(f"autocue check {args.tool}: warning: {w}", file=sys.stderr)
    if args.tool == "assert" and not result.get("passed"):
        return 1
    if args.tool == "run" and result.get("error"):
        return fail("autocue check run", result["error"], 1)
    return 0
