"""What autocue's pytest plugin costs a pytest run that does not use it: ``pytest --co -q`` of one test.

A temporary project holds one trivial test and a ``pytest.ini``. For each source tree given with
``--src LABEL=DIR`` (default: this tree's ``src``), autocue is "installed" the way pip would: a
``dist-info`` with that tree's ``pytest11`` entry points (read from its ``pyproject.toml``) is put
first on ``PYTHONPATH`` with the tree's ``src``, and any ``pytest11`` name of an installed autocue
that the tree does not declare is blocked (``-p no:NAME``), so each tree runs exactly its own
plugins. The trees run in interleaved rounds (one run of each per round, this VM's speed drifts),
after one warm-up run each. Printed per tree: the min and median wall time in ms, the autocue
modules imported by the end of collection, and the median over rounds of the time against the
first tree's.

    python benchmarks/bench_pytest_startup.py --src before=/work/main/src --src after=src [--rounds 10]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
COUNT = ("import sys, pytest; pytest.main(sys.argv[1:]); "
         "print('AUTOCUE_MODULES', sum(m == 'autocue' or m.startswith('autocue.') for m in sys.modules))")


def entry_points(src: Path) -> dict[str, str]:
    """The ``pytest11`` entry points of the tree whose ``src`` is ``src``."""
    data = tomllib.loads((src.parent / "pyproject.toml").read_text())
    return dict(data["project"]["entry-points"]["pytest11"])


def installed_names() -> set[str]:
    """The ``pytest11`` names of every autocue distribution this interpreter sees."""
    return {ep.name for dist in importlib.metadata.distributions() if dist.metadata["Name"] == "autocue"
            for ep in dist.entry_points if ep.group == "pytest11"}


def install(src: Path, where: Path) -> tuple[dict[str, str], list[str]]:
    """The environment and pytest arguments that make ``src`` the installed autocue."""
    eps = entry_points(src)
    info = where / "autocue-0.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: autocue\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(where), str(src)])
    blocked = [a for name in sorted(installed_names() - set(eps)) for a in ("-p", f"no:{name}")]
    return env, blocked


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", action="append", default=[], metavar="LABEL=DIR",
                    help="a source tree to measure (repeatable; default: this tree's src)")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    trees = [(s.split("=", 1)[0], Path(s.split("=", 1)[1]).resolve()) for s in args.src] or [("this", HERE / "src")]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        (project / "pytest.ini").write_text("[pytest]\n")
        (project / "test_one.py").write_text("def test_one():\n    assert True\n")
        runs: dict[str, tuple[dict[str, str], list[str]]] = {}
        for i, (label, src) in enumerate(trees):
            env, blocked = install(src, Path(tmp) / f"site{i}")
            runs[label] = (env, ["--co", "-q", "-p", "no:cacheprovider", *blocked])
        modules: dict[str, str] = {}
        for label, (env, argv) in runs.items():
            out = subprocess.run([sys.executable, "-c", COUNT, *argv], cwd=project, env=env, capture_output=True,
                                 text=True, check=True).stdout
            modules[label] = out.rsplit("AUTOCUE_MODULES", 1)[1].strip()
        times: dict[str, list[float]] = {label: [] for label in runs}
        for _ in range(args.rounds):
            for label, (env, argv) in runs.items():
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=project, env=env, capture_output=True,
                               check=True)
                times[label].append((time.perf_counter() - t0) * 1000)
    first = times[trees[0][0]]
    print(f"pytest --co -q of one test, {args.rounds} interleaved rounds")
    for label, src in trees:
        t = times[label]
        ratio = statistics.median(o / b for b, o in zip(first, t, strict=True))
        print(f"{label:>8}: min {min(t):6.1f} ms  median {statistics.median(t):6.1f} ms  "
              f"autocue modules imported {modules[label]:>4}  x{ratio:.2f} of {trees[0][0]}  ({src})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
