"""``autocue view FILE_OR_URL [-o out.html] [--open]``: one self-contained HTML page (docs/view.md).

Reads a pi-compatible session file, an orchestrator loop recording, a run directory of
``autocue run`` or a live ``autocue simulate`` session URL. Without ``-o`` the page is written
next to the input (``NAME.html``; ``view.html`` inside a run directory; for a URL
``autocue-view-SESSION.html`` in the current directory) and never over a file autocue did
not write. Prints the path written.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from autocue.cli.args import fail

PROG = "autocue view"
MARK = b'<meta name="generator" content="autocue view">'


def default_output(source: str) -> Path:
    if source.startswith(("http://", "https://")):
        sid = re.sub(r"[^A-Za-z0-9_.-]+", "-", source.rstrip("/").removesuffix("/events").rsplit("/", 1)[-1])
        return Path(f"autocue-view-{sid or 'live'}.html")
    p = Path(source)
    return p / "view.html" if p.is_dir() else p.with_suffix(".html")


def _ours(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return MARK in f.read(4096)
    except OSError:
        return False


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description="Render a session file, a loop recording, a run "
                                 "directory or a live simulation URL into one self-contained HTML page.")
    ap.add_argument("source", metavar="FILE_OR_URL")
    ap.add_argument("-o", "--output", type=Path, default=None, help="the HTML file to write")
    ap.add_argument("--open", action="store_true", help="open the page in the default browser")
    args = ap.parse_args(argv)
    from autocue.view import ViewSourceError, load_doc, render_html

    out: Path = args.output or default_output(args.source)
    if args.output is None and out.exists() and not _ours(out):
        return fail(PROG, f"{out} exists and was not written by autocue view; choose another file with -o", 1)
    try:
        page = render_html(load_doc(args.source))
    except ViewSourceError as e:
        return fail(PROG, str(e), 1)
    try:
        tmp = out.with_name(f".{out.name}.autocue-tmp")
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(out)
    except OSError as e:
        return fail(PROG, f"cannot write {out}: {e.strerror or e}", 1)
    print(out)
    if args.open:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return 0
