"""Scale figures: N cells of ``--agent mock`` scenarios at -j 1, 2, 4, with and without a sandbox, and the cost
of resuming a job (docs/scale.md, "Scale figures").

    python benchmarks/bench_scale.py [--cells 200] [--jobs 1,2,4] [--sandbox bwrap] [--rounds 1]
                                     [--resume-left 10] [--src DIR]

Each round runs ``autocue run DIR --agent mock -j J`` as a child process (wall time, from start to exit), and
the same with ``--sandbox NAME`` right after it (before it in odd rounds: the sides alternate), so both see the
same load: per-cell seconds of each and the
sandbox's overhead per cell, ``(with - without) / cells``. The sandbox side is skipped (and says why) when
``autocue run --sandbox`` does not exist in the autocue under test (``--src``: a source tree to put first on
``PYTHONPATH`` for the child runs, e.g. a worktree).

Resume: a job of N cells runs to the end (``--job``), then the result files of ``--resume-left`` cells are
deleted and the same command runs again. It reports how many cells ran (only the deleted ones should), the wall
time of the resumed command, the cells' own time (their ``duration_s``), and the bookkeeping: the wall time
minus the cells' own time (a child process: Python start-up, loading N scenario files, reading N-k result
files) and, measured in this process, the time from ``run_cells`` being called to the first remaining cell
starting (reading the job directory).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCENARIO = """\
name: scale_{n:03d}
agent: mock
initialPrompt: "turn one"
repo:
  files:
    - {{path: notes.txt, contents: "cell {n}\\n"}}
timeline:
  - llmResponse:
      - assistant: [[0, "Reading the notes."]]
      - readFile: {{path: notes.txt}}
  - userInputs: [[0, "turn two"]]
  - llmResponse:
      - assistant: [[0, "Done with {n}."]]
  - assert:
      text: {{contains: ["Done with {n}."]}}
expect: {{exitCode: 0}}
"""


def generate(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"scale_{n:03d}.yaml").write_text(SCENARIO.format(n=n), encoding="utf-8")


def child_env(src: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(x for x in (str(Path(src).resolve()), env.get("PYTHONPATH")) if x)
    return env


def autocue(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "autocue", "run", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=3600, check=False)
    return time.perf_counter() - started, done


def sandbox_missing(name: str, env: dict[str, str]) -> str:
    """Why ``--sandbox NAME`` cannot be measured here (empty: it can)."""
    helped = subprocess.run([sys.executable, "-m", "autocue", "run", "--help"], env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    if "--sandbox" not in helped.stdout:
        return "this autocue run has no --sandbox option"
    with tempfile.TemporaryDirectory(prefix="autocue-bench-sandbox-") as tmp:
        generate(Path(tmp), 1)
        _, done = autocue([tmp, "--sandbox", name, "--out", str(Path(tmp) / "out")], Path(tmp), env)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return ""


def passed(done: subprocess.CompletedProcess[str]) -> str:
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return f"no report (exit {done.returncode}: {done.stderr.strip()[-200:]})"
    return f"{report['passed']} passed, {report['failed']} failed"


def matrix(work: Path, cells: int, jobs: list[int], sandbox: str | None, rounds: int, env: dict[str, str]) -> None:
    why = sandbox_missing(sandbox, env) if sandbox else ""
    if sandbox and why:
        print(f"--sandbox {sandbox}: skipped ({why})")
    modes: list[tuple[str, list[str]]] = [("none", [])]
    if sandbox and not why:
        modes.append((sandbox, ["--sandbox", sandbox]))
    times: dict[tuple[int, str], list[float]] = {}
    for r in range(rounds):
        for j in jobs:
            for name, extra in (modes if r % 2 == 0 else modes[::-1]):  # sides alternate from round to round
                out = work / f"out-{name}-{j}-{r}"
                wall, done = autocue(["cells", "-j", str(j), "--json", "--out", str(out), *extra], work, env)
                times.setdefault((j, name), []).append(wall)
                print(f"round {r + 1}: -j {j} sandbox {name:>6}: {cells} cells in {wall:6.2f} s, "
                      f"{1000 * wall / cells:6.1f} ms per cell ({passed(done)})", flush=True)
                shutil.rmtree(out, ignore_errors=True)
    print(f"medians of {rounds} round(s):")
    for j in jobs:
        none = statistics.median(times[(j, "none")])
        line = f"  -j {j}: no sandbox {1000 * none / cells:6.1f} ms per cell"
        if len(modes) > 1:
            boxed = statistics.median(times[(j, modes[1][0])])
            over = [1000 * (b - n) / cells for b, n in zip(times[(j, modes[1][0])], times[(j, "none")], strict=True)]
            line += (f"; --sandbox {modes[1][0]} {1000 * boxed / cells:6.1f} ms per cell; overhead "
                     f"{statistics.median(over):+.1f} ms per cell (target <= 50)")
        print(line)


def resume(work: Path, cells: int, left: int, env: dict[str, str]) -> None:
    job = work / "job"
    wall, done = autocue(["cells", "-j", "2", "--job", str(job), "--out", str(work / "out-job")], work, env)
    if "--job" in done.stderr and done.returncode == 2:
        print(f"resume: skipped ({done.stderr.strip().splitlines()[-1]})")
        return
    files = sorted((job / "cells").glob("*.json"))
    print(f"resume: a job of {len(files)} cells ran in {wall:.2f} s at -j 2")
    step = max(1, len(files) // left)
    gone = files[::step][:left]
    for f in gone:
        f.unlink()
    kept = {f: f.read_bytes() for f in files if f not in gone}
    wall, done = autocue(["cells", "--job", str(job), "--out", str(work / "out-job")], work, env)
    fresh = [json.loads(f.read_text())["result"] for f in gone if f.exists()]
    rerun = len(fresh) + sum(1 for f, data in kept.items() if f.read_bytes() != data)
    own = sum(r["duration_s"] for r in fresh)
    skipped = next((x for x in done.stdout.splitlines() if x.startswith("job ")), "")
    print(f"resume: {skipped}")
    print(f"resume: {rerun} cells ran (of {cells}; {left} expected), the command took {wall:.2f} s, the cells' "
          f"own time {own:.2f} s: bookkeeping {wall - own:.2f} s (a child process: start-up, {cells} scenario "
          f"files loaded, {cells - left} results read)")
    in_process(work, job, left)


def in_process(work: Path, job: Path, left: int) -> None:
    """The time from ``run_cells`` to the first remaining cell starting, in this process."""
    import autocue.runner.jobs as jobs
    from autocue.runner import RunOptions, collect
    from autocue.runner.interrupt import Interrupt
    from autocue.runner.jobs import Plan, cell_file, run_cells
    from autocue.runner.matrix import cells_of

    cwd = os.getcwd()
    os.chdir(work)
    try:
        t0 = time.perf_counter()
        cells = cells_of(collect(["cells"]))
        loaded = time.perf_counter() - t0
        for c in cells[::max(1, len(cells) // left)][:left]:
            cell_file(job, c.id).unlink()
        starts: list[float] = []
        real = jobs._run_attempt

        def timed(*args: Any, **kwargs: Any) -> Any:
            starts.append(time.perf_counter())
            return real(*args, **kwargs)

        jobs._run_attempt = timed
        try:
            t1 = time.perf_counter()
            report = run_cells(cells, RunOptions(out=work / "out-inproc"), Plan(job=job), Interrupt())
            total = time.perf_counter() - t1
        finally:
            jobs._run_attempt = real
        own = sum(s.duration_s for s in report.scenarios if s.out_dir and "out-inproc" in s.out_dir)
        print(f"resume in-process: {len(cells)} scenarios loaded in {loaded:.3f} s; {len(starts)} cells ran; the "
              f"first started {starts[0] - t1:.3f} s after run_cells was called; run_cells took {total:.2f} s, the "
              f"cells' own time {own:.2f} s: bookkeeping {total - own:.3f} s (target <= 1 s)")
    finally:
        os.chdir(cwd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, default=200)
    ap.add_argument("--jobs", default="1,2,4")
    ap.add_argument("--sandbox", default=None, metavar="NAME", help="also run with autocue run --sandbox NAME")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--resume-left", type=int, default=10)
    ap.add_argument("--src", default=None, help="a source tree first on PYTHONPATH for the child runs")
    args = ap.parse_args()
    env = child_env(args.src)
    with tempfile.TemporaryDirectory(prefix="autocue-bench-scale-") as tmp:
        work = Path(tmp)
        generate(work / "cells", args.cells)
        matrix(work, args.cells, [int(x) for x in args.jobs.split(",")], args.sandbox, args.rounds, env)
        resume(work, args.cells, args.resume_left, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
