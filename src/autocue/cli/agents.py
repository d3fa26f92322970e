"""``autocue agents``: the real agent CLIs autocue has launch profiles for.

    autocue agents [--json] [--agents-file FILE]     installed CLIs, versions, verified or not
    autocue agents install NAME... [--dir DIR]       install pinned versions (npm / pip)

A CLI is looked up in ``$AUTOCUE_AGENTS_DIR/bin``, then ``PATH``. ``install`` puts each CLI in
``DIR/NAME`` (an npm prefix, or a Python venv for pip packages) with a link in ``DIR/bin``;
``DIR`` is ``--dir``, else ``$AUTOCUE_AGENTS_DIR``. A CLI already at its pinned version is left
as it is. Exit 0, 1 when an install failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.cli.args import fail

if TYPE_CHECKING:
    from autocue.catalog.launch import AgentProfile

PROG = "autocue agents"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="List the agent CLIs autocue has launch profiles for, or "
                                "install their pinned versions (see docs/agents.md).")
    p.add_argument("words", nargs="*", metavar="install NAME",
                   help="`install NAME...` installs the CLIs (all: every one); nothing (or `list`) lists them")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dir", metavar="DIR", help="with install: where to install (default $AUTOCUE_AGENTS_DIR)")
    p.add_argument("--agents-file", dest="agents_files", action="append", default=[], metavar="FILE",
                   help="a TOML or YAML file of user-defined launch profiles to list too")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    action, args.names = (args.words[0], args.words[1:]) if args.words else ("list", [])
    if action not in ("list", "install"):
        return fail(PROG, f"unknown action {action!r}: `autocue agents` lists the CLIs, `autocue agents install "
                          "NAME...` installs them")
    from autocue.catalog.registry import launch_profiles
    from autocue.runner.agents import profiles
    from autocue.runner.errors import LaunchError

    try:
        known = profiles(args.agents_files)
    except LaunchError as e:
        return fail(PROG, str(e))
    if action == "install":
        return _install(args, launch_profiles())
    if args.names:
        return fail(PROG, "`autocue agents list` takes no names; install with `autocue agents install NAME...`")
    return _list(known, args.json)


def _list(known: dict[str, AgentProfile], as_json: bool) -> int:
    from autocue.runner.agents import installed

    rows: list[dict[str, Any]] = []
    for name, prof in known.items():
        got = installed(prof)
        rows.append({"name": name, "installed": got.path is not None, "path": got.path, "version": got.version,
                     "pinned": prof.version or None, "verified_versions": list(prof.verified),
                     "verified": got.verified, "modes": ["print"] + (["tui"] if prof.tui_args is not None else []),
                     "apis": list(prof.apis), "tool_profile": prof.tool_profile, "source": prof.source})
    if as_json:
        print(json.dumps({"agents": rows}))
        return 0
    print(f"{'agent':<10} {'installed':<12} {'pinned':<10} {'verified':<9} {'modes':<10} apis")
    for r in rows:
        inst = r["version"] or ("yes" if r["installed"] else "no")
        ver = "yes" if r["verified"] else ("-" if not r["installed"] else "no")
        print(f"{r['name']:<10} {inst:<12} {r['pinned'] or '-':<10} {ver:<9} {'+'.join(r['modes']):<10} "
              f"{', '.join(r['apis'])}")
    missing = [r["name"] for r in rows if not r["installed"]]
    if missing:
        print(f"not installed: {' '.join(missing)} (autocue agents install NAME... with AUTOCUE_AGENTS_DIR set)")
    return 0


def _install(args: argparse.Namespace, builtin: dict[str, AgentProfile]) -> int:
    from autocue.runner.agents import installed

    names = list(builtin) if args.names == ["all"] else args.names
    names = [n for n in names if n != "autocue"] if args.names == ["all"] else names
    if not names:
        return fail(PROG, "name the CLIs to install: autocue agents install claude codex ... (or all)")
    unknown = [n for n in names if n not in builtin or n == "autocue"]
    if unknown:
        from autocue.errors import nearest

        installable = [n for n in builtin if n != "autocue"]
        near = nearest(unknown[0], installable)
        guess = f"; did you mean {near!r}?" if near else ""
        return fail(PROG, f"unknown agent {unknown[0]!r}{guess} (installable: {', '.join(installable)})")
    target = args.dir or os.environ.get("AUTOCUE_AGENTS_DIR")
    if not target:
        return fail(PROG, "where to? pass --dir DIR or set AUTOCUE_AGENTS_DIR (runs look there: "
                          "$AUTOCUE_AGENTS_DIR/bin)")
    root = Path(target).resolve()
    (root / "bin").mkdir(parents=True, exist_ok=True)
    os.environ["AUTOCUE_AGENTS_DIR"] = str(root)
    failed = 0
    for name in names:
        prof = builtin[name]
        have = installed(prof)
        if have.path is not None and have.version == prof.version and Path(have.path).parent == root / "bin":
            print(f"{name}: {prof.package} {prof.version} already installed")
            failed += not _install_acp(name, prof, root)
            continue
        print(f"{name}: installing {prof.package} {prof.version} into {root / name}", flush=True)
        prefix = root / name
        if prof.installer == "npm":
            npm = shutil.which("npm")
            if npm is None:
                print(f"{PROG}: {name}: npm is not installed (Node.js 20+ is needed)", file=sys.stderr)
                failed += 1
                continue
            cmds = [[npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
                     f"{prof.package}@{prof.version}"]]
            exe = prefix / "node_modules" / ".bin" / prof.binary
        else:
            py = prefix / "bin" / "python"
            cmds = [[sys.executable, "-m", "venv", str(prefix)],
                    [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                     f"{prof.package}=={prof.version}"]]
            exe = prefix / "bin" / prof.binary
        code = 0
        for cmd in cmds:
            code = subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode
            if code:
                break
        if code or not exe.exists():
            print(f"{PROG}: {name}: {' '.join(cmds[-1][:2])} ... exited {code}"
                  + ("" if code else f" but {exe} is missing"), file=sys.stderr)
            failed += 1
            continue
        link = root / "bin" / prof.binary
        link.unlink(missing_ok=True)
        link.symlink_to(exe)
        print(f"{name}: {link} -> {exe}")
        failed += not _install_acp(name, prof, root)
    return 1 if failed else 0


def _install_acp(name: str, prof: AgentProfile, root: Path) -> bool:
    """Install ``prof``'s ACP adapter (an npm package, pinned) into ``root/NAME-acp`` with a link in ``root/bin``
    (``autocue run --via acp``); True when there is none to install or it is there."""
    acp = prof.acp
    if acp is None or not acp.package:
        return True
    prefix = root / f"{name}-acp"
    exe = prefix / "node_modules" / ".bin" / acp.binary
    meta = prefix / "node_modules" / acp.package / "package.json"
    link = root / "bin" / acp.binary
    try:
        have = json.loads(meta.read_text()).get("version")
    except (OSError, ValueError):
        have = None
    if have == acp.version and exe.exists():
        print(f"{name}: ACP adapter {acp.package} {acp.version} already installed")
    else:
        npm = shutil.which("npm")
        if npm is None:
            print(f"{PROG}: {name}: npm is not installed (Node.js 20+ is needed for {acp.package})", file=sys.stderr)
            return False
        print(f"{name}: installing its ACP adapter {acp.package} {acp.version} into {prefix}", flush=True)
        code = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
                               f"{acp.package}@{acp.version}"], stdin=subprocess.DEVNULL).returncode
        if code or not exe.exists():
            print(f"{PROG}: {name}: npm install {acp.package}@{acp.version} exited {code}"
                  + ("" if code else f" but {exe} is missing"), file=sys.stderr)
            return False
    link.unlink(missing_ok=True)
    link.symlink_to(exe)
    return True
