"""``autocue verify-install DIR``: build, install into a fresh venv and load an extension package.

    autocue verify-install examples/planner --expect-extensions 1 \\
        --expect-tool plan_list --expect-tool plan_mode --smoke smoke.yaml

Exit status: 0 when the package installs, every extension loads and every expectation holds;
1 when the check found problems (the report names each, why, and the fix); 2 for a usage
error (bad option, unreadable smoke file). ``--json`` prints the whole result as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from autocue.cli.args import CliParser, fail


def _parser() -> argparse.ArgumentParser:
    p = CliParser(
        prog="autocue verify-install",
        description="Prove an extension package installs and loads as a user gets it: build its wheel, install it "
                    "with the running autocue into a fresh venv, discover its autocue.extensions entry "
                    "points there, load them, and check expectations. Installs come from a local wheelhouse (no "
                    "index); build requirements that are not installed here are fetched from the configured index "
                    "when it is reachable, and the report says so (--offline forbids it, --online allows the index "
                    "everywhere).",
    )
    p.add_argument("package_dir", metavar="DIR", help="the package directory (with pyproject.toml)")
    p.add_argument("--expect-tool", action="append", default=[], metavar="NAME",
                   help="a tool that must be registered (repeatable)")
    p.add_argument("--expect-extensions", type=int, metavar="N", help="how many extensions must load")
    p.add_argument("--expect-skill", action="append", default=[], metavar="NAME",
                   help="a skill that must be discovered (repeatable)")
    p.add_argument("--smoke", metavar="FILE",
                   help="a smoke playbook to play in the sandbox: .yaml/.yml/.json (wire format) or .py "
                        "(defines smoke)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto",
                   help="uv (fast) or the standard build/venv/pip; auto uses uv when found")
    p.add_argument("--python", metavar="PATH", help="interpreter for the sandbox venv (default: this one)")
    p.add_argument("--find-links", action="append", default=[], metavar="DIR",
                   help="a directory of wheels to install dependencies from (repeatable)")
    net = p.add_mutually_exclusive_group()
    net.add_argument("--offline", dest="offline", action="store_const", const=True,
                     help="never contact a package index, not even for missing build requirements")
    net.add_argument("--online", dest="offline", action="store_const", const=False,
                     help="allow the package index in every step (build requirements, autocue's own wheel, installs)")
    p.add_argument("--cache-dir", metavar="DIR", help="where wheels are cached (default ~/.cache/autocue/sandbox)")
    p.add_argument("--keep", action="store_true", help="keep the sandbox directory for debugging")
    p.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS", help="per-step timeout")
    p.add_argument("-q", "--quiet", action="store_true", help="no tracebacks/installer output in the report")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from autocue.sandbox.check import verify_sandbox_install
    from autocue.sandbox.smoke import SmokeSpecError

    expect: dict[str, object] = {}
    if args.expect_extensions is not None:
        expect["extensions"] = args.expect_extensions
    if args.expect_tool:
        expect["tools"] = list(args.expect_tool)
    if args.expect_skill:
        expect["skills"] = list(args.expect_skill)
    try:
        result = verify_sandbox_install(
            args.package_dir, expect=expect or None, smoke=args.smoke, python=args.python,
            installer=args.installer, offline=args.offline, find_links=args.find_links,
            cache_dir=args.cache_dir, check=False, keep=args.keep, timeout=args.timeout,
        )
    except (SmokeSpecError, TypeError, FileNotFoundError) as e:
        return fail("autocue verify-install", str(e))
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=repr))
    else:
        print(result.report(details=not args.quiet))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
