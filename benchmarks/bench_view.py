"""Benchmark: ``autocue view`` on a large session.

    python benchmarks/bench_view.py [--entries 100000] [--rounds 3] [--no-browser]

1. Time to render a pi session file of N entries (default 100,000) to one HTML page: read
   with ``SessionManager``, mapped to events, serialized into the page (target ≤ 2 s).
2. The page's load time in Chromium (Debian's ``/usr/bin/chromium`` through Playwright, when
   both are present): first paint and first contentful paint from the Performance API, and
   when the first rows are on screen (target ≤ 1 s to first paint).

Figures are the median of ``--rounds`` runs (a loaded machine varies a lot between runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autocue.view import load_doc, render_html
from autocue.view.synthetic import write_big_session

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def render(path: Path, out: Path) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    doc = load_doc(str(path))
    t1 = time.perf_counter()
    page = render_html(doc)
    out.write_text(page, encoding="utf-8")
    return t1 - t0, time.perf_counter() - t1, len(page.encode())


def browser_load(page_path: Path, rounds: int) -> list[tuple[float, float, float]] | str:
    if not CHROMIUM.is_file():
        return f"skipped: no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "skipped: playwright is not installed (pip install -e .[dev])"
    out: list[tuple[float, float, float]] = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for _ in range(rounds):
                ctx = b.new_context(viewport={"width": 1200, "height": 800})
                pg = ctx.new_page()
                pg.goto(page_path.resolve().as_uri())
                pg.wait_for_selector("body[data-ready='1']", timeout=60_000)
                paints = dict(pg.evaluate("performance.getEntriesByType('paint').map(e => [e.name, e.startTime])"))
                ready = float(pg.evaluate("document.body.dataset.readyMs"))
                out.append((paints.get("first-paint", -1.0), paints.get("first-contentful-paint", -1.0), ready))
                ctx.close()
        finally:
            b.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-view-") as d:
        src = write_big_session(Path(d) / "big.jsonl", args.entries)
        out = Path(d) / "big.html"
        runs = [render(src, out) for _ in range(args.rounds)]
        read = statistics.median(r[0] for r in runs)
        html = statistics.median(r[1] for r in runs)
        total = statistics.median(r[0] + r[1] for r in runs)
        size = runs[0][2]
        print(f"render {args.entries:,} entries ({src.stat().st_size / 1e6:.1f} MB JSONL) -> {size / 1e6:.1f} MB HTML")
        print(f"  read + map {read:.2f} s, page {html:.2f} s, total {total:.2f} s (median of {args.rounds}); "
              f"target ≤ 2 s: {'met' if total <= 2 else 'NOT met'}")
        if args.no_browser:
            return 0
        loads = browser_load(out, args.rounds)
        if isinstance(loads, str):
            print(f"Chromium page load: {loads}")
            return 0
        fp = statistics.median(x[0] for x in loads)
        fcp = statistics.median(x[1] for x in loads)
        ready = statistics.median(x[2] for x in loads)
        print(f"Chromium page load: first paint {fp:.0f} ms, first contentful paint {fcp:.0f} ms, first rows "
              f"rendered {ready:.0f} ms (median of {args.rounds}); target ≤ 1000 ms to first paint: "
              f"{'met' if 0 <= fp <= 1000 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
