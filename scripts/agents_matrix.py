"""Run the examples/agents/ matrix against every installed agent CLI and publish it in docs/agents.md.

    python scripts/agents_matrix.py [--write] [--only NAME,...] [--modes print,tui,acp]
    python scripts/agents_matrix.py --overhead N [--only NAME,...]

For each CLI with a launch profile that is installed (``$AUTOCUE_AGENTS_DIR/bin`` or ``PATH``): the
print-mode scenarios once per wire protocol the CLI speaks (``--llm-api``), the ``tui_*``
scenarios in its TUI, and the print-mode scenarios over its ACP server (``--via acp``, when the
server is installed). Prints the Markdown table; ``--write`` replaces the table between the
``<!-- matrix:start -->`` and ``<!-- matrix:end -->`` markers of docs/agents.md (with ``--only`` or
``--modes``, only those rows: the others stay as they were). Exit 1 when a cell failed.
``bash scripts/real-agents.sh --matrix`` runs it.

``--overhead N``: per CLI, N interleaved pairs of runs of ``create_file`` in print mode and over ACP
(print, acp, print, acp, ...); prints the mean and median seconds of each and the difference.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, installed

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "agents"
PAGE = ROOT / "docs" / "agents.md"
START, END = "<!-- matrix:start -->", "<!-- matrix:end -->"
NOT_APPLICABLE = {("aider", "shell_answer")}


def acp_version(prof: object) -> str | None:
    """The installed version of ``prof``'s ACP server (the CLI's own when it has no adapter); None: not installed."""
    from autocue.runner.agents.base import find_binary

    acp = getattr(prof, "acp", None)
    if acp is None or find_binary(prof, acp=True) is None:  # type: ignore[arg-type]
        return None
    return f"{acp.package}@{acp.version}" if acp.package else "own"


def overhead(pairs: int, only: set[str]) -> int:
    scenario = EXAMPLES / "create_file.yaml"
    out = Path(tempfile.mkdtemp(prefix="autocue-acp-overhead-"))
    for name, prof in BUILTIN.items():
        if name == "autocue" or (only and name not in only) or installed(prof).path is None or not acp_version(prof):
            continue
        times: dict[str, list[float]] = {"print": [], "acp": []}
        for _ in range(pairs):
            for via in ("print", "acp"):
                [r] = run_scenarios(scenario, agent=name, via=via, out=out, timeout=120, ci=False).scenarios
                if not r.passed:
                    print(f"{name} {via}: FAIL {[f.line() for f in r.failures]}", file=sys.stderr)
                times[via].append(r.duration_s)
        p, a = times["print"], times["acp"]
        mp, ma = statistics.median(p), statistics.median(a)
        print(f"| {name} | {pairs} | {statistics.mean(p):.2f} / {mp:.2f} | {statistics.mean(a):.2f} / {ma:.2f} | "
              f"{ma - mp:+.2f} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--modes", default="print,tui,acp")
    ap.add_argument("--overhead", type=int, default=0, metavar="N")
    args = ap.parse_args()
    only = {x for x in args.only.split(",") if x}
    modes = {x for x in args.modes.split(",") if x}
    if args.overhead:
        return overhead(args.overhead, only)
    printed = sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.startswith("tui_"))
    tui = sorted(EXAMPLES.glob("tui_*.yaml"))
    cols = [p.stem for p in printed + tui]
    rows: list[str] = []
    failed = 0
    out = Path(tempfile.mkdtemp(prefix="autocue-matrix-"))
    for name, prof in BUILTIN.items():
        if name == "autocue" or (only and name not in only):
            continue
        got = installed(prof)
        if got.path is None:
            rows.append(f"| {name} | not installed | | | " + " | ".join("" for _ in cols) + " |")
            continue
        runs = [("print", api, printed) for api in prof.apis]
        if prof.tui_args is not None:
            runs.append(("tui", next(iter(prof.apis)), tui))
        server = acp_version(prof)
        if prof.acp is not None:
            if server is None:
                rows.append(f"| {name} | {prof.acp.package or name} not installed | acp | | "
                            + " | ".join("" for _ in cols) + " |")
            else:
                runs.append(("acp", next(iter(prof.apis)), printed))
        for mode, api, files in runs:
            if mode not in modes:
                continue
            cells = {}
            for f in files:
                if (name, f.stem) in NOT_APPLICABLE:
                    cells[f.stem] = "n/a"
                    continue
                t0 = time.monotonic()
                # a copy per cell, not in CI mode: each agent's screens become goldens there, not in examples/
                copy = out / "scenarios" / name / mode / api / f.name
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, copy)
                [r] = run_scenarios(copy, agent=name, llm_api=api, out=out, timeout=120, ci=False,
                                    via="acp" if mode == "acp" else None).scenarios
                cells[f.stem] = f"pass ({time.monotonic() - t0:.1f} s)" if r.passed else "**FAIL**"
                failed += not r.passed
                print(f"{name} {mode} {api} {f.stem}: {cells[f.stem]}", file=sys.stderr)
                for line in [x.line() for x in r.failures] + r.diagnostics:
                    print("    " + line, file=sys.stderr)
            verified = "" if got.verified else " (not verified)"
            version = f"{got.version}{verified}" + (f" + {server}" if mode == "acp" and server != "own" else "")
            rows.append(f"| {name} | {version} | {mode} | {api} | "
                        + " | ".join(cells.get(c, "") for c in cols) + " |")
    if only or modes != {"print", "tui", "acp"}:  # keep the page's other rows
        rows = merged(rows, only, modes)
    table = "\n".join([f"| CLI | version | mode | API | {' | '.join(cols)} |",
                       "|---|---|---|---|" + "---|" * len(cols), *rows])
    stamp = f"Generated by `bash scripts/real-agents.sh --matrix` on {time.strftime('%Y-%m-%d')}."
    print(table)
    if args.write:
        text = PAGE.read_text()
        a, b = text.index(START) + len(START), text.index(END)
        PAGE.write_text(text[:a] + f"\n{stamp}\n\n{table}\n" + text[b:])
    return 1 if failed else 0


def merged(rows: list[str], only: set[str], modes: set[str]) -> list[str]:
    """The page's table rows with those of ``only`` x ``modes`` replaced by ``rows``, in the CLIs' order."""
    text = PAGE.read_text()
    old = [x for x in text[text.index(START):text.index(END)].splitlines() if x.startswith("| ")][1:]

    def key(row: str) -> tuple[str, str]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        return cells[0], cells[2]

    kept = [r for r in old if not ((not only or key(r)[0] in only) and key(r)[1] in modes) and r not in rows]
    order = {n: i for i, n in enumerate(BUILTIN)}
    mode_order = {"print": 0, "tui": 1, "acp": 2}
    return sorted(kept + rows, key=lambda r: (order.get(key(r)[0], 99), mode_order.get(key(r)[1], 3)))


if __name__ == "__main__":
    sys.exit(main())
