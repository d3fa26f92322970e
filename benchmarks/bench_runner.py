"""The scenario executor's speed: N generated scenarios run with ``--agent mock`` at -j 1 and -j 2.

    python benchmarks/bench_runner.py [--scenarios 100] [--jobs 1,2]
    python benchmarks/bench_runner.py --agents [--runs 20]
    python benchmarks/bench_runner.py --spawn [--runs 200]

Each scenario has 3 turns (the initial prompt and two typed inputs, each answered by a reply
with a text and a tool call) and one screenshot. It prints seconds per scenario, the speed-up
of each -j over -j 1, and the executor's own share: the time a run is not waiting for the
program under test to live (set-up, synchronisation after it exited, goldens, clean-up) — the
program's lifetime (start-up of the mock agent's Python, its tools) is reported apart.

``--agents``: the per-run overhead autocue adds around a real agent CLI (workspace, the seeded
private HOME, the server session, the pty, the stderr copy, clean-up), measured per launch
profile with a stand-in binary that exits at once, next to each installed CLI's own start-up
(``NAME --version``, the least it costs). The target is 100 ms per run.

``--spawn``: the process runner's own cost per run (``autocue.process``), with a program that
exits at once (``true``): ``run_process`` with pipes, ``run_process`` in a pseudo-terminal, and
the executor's ``PtyProgram`` (start in a pty, read to the end, close). Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autocue.runner import RunOptions, collect, run_selected

SCENARIO = """\
name: bench_{n:03d}
tags: [bench]
agent: mock
initialPrompt: "turn one"
repo:
  files:
    - {{path: notes.txt, contents: "scenario {n}\\n"}}
timeline:
  - llmResponse:
      - assistant: [[0, "Reading the notes."]]
      - readFile: {{path: notes.txt}}
  - userInputs: [[0, "turn two"]]
  - llmResponse:
      - assistant: [[0, "Listing."]]
      - listDir: {{path: .}}
  - userInputs: [[0, "turn three"]]
  - llmResponse:
      - assistant: [[0, "Done with {n}."]]
  - screenshot: final
expect: {{exitCode: 0}}
"""


def generate(folder: Path, count: int) -> None:
    for n in range(count):
        (folder / f"bench_{n:03d}.yaml").write_text(SCENARIO.format(n=n), encoding="utf-8")


AGENT_SCENARIO = """\
name: overhead
initialPrompt: hello
timeline:
  - assert: {fs: {notExists: [nothing.txt]}}
"""
OVERHEAD_TARGET_MS = 100


def agents(runs: int) -> int:
    """Per-run overhead of each launch profile, and each installed CLI's own start-up."""
    import os
    import shutil
    import subprocess

    from autocue.runner.agents import BUILTIN, find_binary

    real_dir = os.environ.get("AUTOCUE_AGENTS_DIR")
    names = [n for n in BUILTIN if n != "autocue"]
    startup: dict[str, float | None] = {}
    for name in names:
        exe = find_binary(BUILTIN[name])
        if exe is None:
            startup[name] = None
            continue
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run([exe, "--version"], capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
            times.append(time.perf_counter() - t0)
        startup[name] = statistics.median(times)
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="autocue-bench-agents-") as tmp:
        root = Path(tmp)
        (root / "bin").mkdir()
        true = shutil.which("true") or "/bin/true"
        for name in names:
            (root / "bin" / BUILTIN[name].binary).symlink_to(true)
        (root / "overhead.yaml").write_text(AGENT_SCENARIO, encoding="utf-8")
        items = collect([root / "overhead.yaml"])
        os.environ["AUTOCUE_AGENTS_DIR"] = str(root)
        try:
            run_selected(items, RunOptions(agent=names[0], out=root / "warm", ci=False))  # imports, the server's start
            print(f"per-run overhead of autocue around an agent CLI (median of {runs} runs; target "
                  f"<= {OVERHEAD_TARGET_MS} ms) and the CLI's own start-up (--version, median of 3):")
            for name in names:
                own = []
                for _ in range(runs):
                    report = run_selected(items, RunOptions(agent=name, out=root / "out", ci=False))
                    [r] = report.scenarios
                    if not r.passed:
                        print(f"  {name}: FAILED {[f.line() for f in r.failures]}")
                        return 1
                    own.append(r.duration_s)
                med = statistics.median(own)
                worst = max(worst, med)
                cli = startup[name]
                shown = f"{cli * 1000:.0f} ms" if cli is not None else "not installed"
                print(f"  {name:<9} overhead {med * 1000:5.1f} ms   {BUILTIN[name].binary} start-up {shown}")
        finally:
            if real_dir is None:
                os.environ.pop("AUTOCUE_AGENTS_DIR", None)
            else:
                os.environ["AUTOCUE_AGENTS_DIR"] = real_dir
    print(f"worst overhead {worst * 1000:.1f} ms: {'within' if worst * 1000 <= OVERHEAD_TARGET_MS else 'OVER'} "
          f"the {OVERHEAD_TARGET_MS} ms target")
    return 0


def spawn_overhead(runs: int) -> int:
    """Per-run cost of the process runner around a program that exits at once."""
    import asyncio
    import os
    import shutil

    from autocue.process import run_process
    from autocue.runner.cast import CastWriter
    from autocue.runner.pty import PtyProgram

    true = shutil.which("true") or "/bin/true"

    async def runs_of(**options: object) -> list[float]:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            r = await run_process([true], **options)  # type: ignore[arg-type]
            times.append(time.perf_counter() - t0)
            assert r.code == 0, r
        return times

    def pty_program(folder: Path) -> list[float]:
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            prog = PtyProgram([true], cwd=folder, env={"PATH": os.environ.get("PATH", "")}, width=80, height=24,
                              cast=CastWriter(folder / "s.cast", 80, 24, title="bench"))
            prog.wait_exit(time.monotonic() + 10)
            prog.close()
            times.append(time.perf_counter() - t0)
            assert prog.exit_code == 0, prog.exit_code
        return times

    rows = [("run_process, pipes", asyncio.run(runs_of()))]
    try:
        rows.append(("run_process, pseudo-terminal", asyncio.run(runs_of(terminal=(80, 24)))))
    except TypeError:  # a runner without the terminal option
        rows.append(("run_process, pseudo-terminal", []))
    with tempfile.TemporaryDirectory(prefix="autocue-bench-spawn-") as tmp:
        rows.append(("PtyProgram (the executor's)", pty_program(Path(tmp))))
    print(f"per-run cost of the process runner around `true` (median of {runs} runs):")
    for label, times in rows:
        shown = f"{statistics.median(times) * 1000:6.2f} ms" if times else "   n/a"
        print(f"  {label:<30} {shown}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", type=int, default=100)
    ap.add_argument("--jobs", default="1,2", help="comma-separated -j values (default 1,2)")
    ap.add_argument("--agents", action="store_true", help="per-run overhead around real agent CLIs")
    ap.add_argument("--spawn", action="store_true", help="per-run cost of the process runner itself")
    ap.add_argument("--runs", type=int, default=None,
                    help="with --agents: runs per launch profile (20); with --spawn: runs per way (200)")
    args = ap.parse_args(argv)
    if args.agents:
        return agents(args.runs or 20)
    if args.spawn:
        return spawn_overhead(args.runs or 200)
    jobs = [int(j) for j in args.jobs.split(",")]
    with tempfile.TemporaryDirectory(prefix="autocue-bench-runner-") as tmp:
        root = Path(tmp)
        (root / "scenarios").mkdir()
        generate(root / "scenarios", args.scenarios)
        items = collect([root / "scenarios"])
        per: dict[int, float] = {}
        failures: list[str] = []
        for j in jobs:
            out = root / f"out-j{j}"
            t0 = time.perf_counter()
            report = run_selected(items, RunOptions(jobs=j, out=out, ci=False))
            wall = time.perf_counter() - t0
            failures += [f"{s.name}: {f.line()}" for s in report.scenarios for f in s.failures]
            per[j] = wall / len(items)
            own = [s.duration_s - s.program_s for s in report.scenarios]
            prog = [s.program_s for s in report.scenarios]
            print(f"-j {j}: {len(items)} scenarios in {wall:.2f} s = {per[j] * 1000:.0f} ms per scenario "
                  f"({report.passed} passed, {report.failed} failed)")
            share = sum(own) / sum(s.duration_s for s in report.scenarios)
            print(f"  per run: program alive {statistics.median(prog) * 1000:.0f} ms (median), executor's own "
                  f"share {statistics.median(own) * 1000:.0f} ms (median), {share:.0%} of run time")
        base = per.get(1)
        if base:
            for j, t in per.items():
                if j != 1:
                    print(f"  -j {j} is {base / t:.2f}x faster than -j 1")
        for line in failures[:5]:
            print(f"  FAILED {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
