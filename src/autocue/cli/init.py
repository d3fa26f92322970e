"""``autocue init [DIR]``: write the shipped examples out as a starting project (DIR defaults to ``.``).

It writes the examples' files (an extension package with its playbook tests, scenarios, an
orchestrator loop) and a README that says what to run next, and a ``pytest.ini`` (pytest-asyncio's
loop scope set, so its tests run without a deprecation warning) unless DIR already has a pytest
configuration file. It never overwrites nor deletes: when any of its files exists in DIR it
writes nothing, names the file and exits 1. Run from a virtual environment that is not active,
it says how to activate it (the README's commands need its ``pytest`` and ``autocue``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from autocue.cli.args import fail

PROG = "autocue init"
PYTEST_INI = """\
# Written by `autocue init`: pytest settings of this project.
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""
"""The project's pytest configuration: ``async def`` tests run as in autocue's own suite, and
pytest-asyncio prints no warning about an unset fixture loop scope."""
PYTEST_CONFIGS = ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
"""Files pytest may take its configuration from: when DIR has one, init leaves pytest's settings to it."""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Write autocue's examples into DIR as a starting project: an extension package with its "
                    "playbook tests, YAML scenarios, an orchestrator loop, and a README saying what to run next. "
                    "Existing files are never overwritten.",
    )
    ap.add_argument("dir", nargs="?", default=".", metavar="DIR", help="where to write (default: .)")
    args = ap.parse_args(argv)
    from autocue.example_files import ExamplesConflictError, ExamplesNotFoundError, copy_examples

    dest = Path(args.dir)
    kept = next((name for name in PYTEST_CONFIGS if (dest / name).exists()), None)
    try:
        written = copy_examples(dest, extra=None if kept else {"pytest.ini": PYTEST_INI})
    except ExamplesConflictError as e:
        return fail(PROG, f"{e}; init never overwrites files, so it wrote nothing: choose a new or empty directory "
                    "(autocue init NEW_DIR) or move those files away", 1)
    except ExamplesNotFoundError as e:
        return fail(PROG, str(e), 1)
    except OSError as e:
        what = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e)
        return fail(PROG, f"cannot write the starting project to {dest}: {what}", 1)
    print(f"autocue init: wrote {len(written)} files to {dest}:")
    for f in written:
        print(f"  {f.relative_to(dest).as_posix()}")
    if kept:
        print(f"kept your {kept}: add `asyncio_default_fixture_loop_scope = function` to its pytest settings "
              "(pytest-asyncio warns while it is unset)")
    go = "" if dest.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(dest))} && "
    print(f"next: {_activate()}{go}pytest -q planner/tests   (README.md lists the rest)")
    return 0


def _activate() -> str:
    """``source .../bin/activate && `` when autocue runs from a virtual environment that is not the
    active one (``.venv/bin/autocue init``): the README's ``pytest`` and ``autocue`` are its."""
    script = Path(sys.prefix) / "bin" / "activate"
    if sys.prefix == sys.base_prefix or os.environ.get("VIRTUAL_ENV") == sys.prefix or not script.is_file():
        return ""
    return f"source {shlex.quote(str(script))} && "


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
