"""``autocue init [DIR]``: write the shipped examples out as a starting project (DIR defaults to ``.``).

It writes the examples' files (an extension package with its playbook tests, scenarios, an
orchestrator loop) and a README that says what to run next. It never overwrites nor deletes:
when any of its files exists in DIR it writes nothing, names the file and exits 1.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from autocue.cli.args import fail

PROG = "autocue init"


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
    try:
        written = copy_examples(dest)
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
    go = "" if dest.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(str(dest))} && "
    print(f"next: {go}pytest -q planner/tests   (README.md lists the rest)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
