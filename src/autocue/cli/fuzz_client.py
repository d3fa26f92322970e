"""``autocue fuzz-client``: run a client command against N fuzz seeds; shrink the first failure.

    autocue fuzz-client --cmd 'python my_client.py {openai_base_url} {api_key}'
                        [--seeds 100] [--start 0] [--scenario FILE ...] [--timeout 60] [-o DIR]

The command runs once on the plain stream (what it prints there is the expected output),
then once per seed; it fails a seed by exiting non-zero or printing something else. The
first failing seed is shrunk to the fewest fuzz features and splits that still fail; its
streams are written to ``DIR`` (default ``.autocue/fuzz``) and the spec to reproduce it is
printed (``autocue serve SCENARIO --fuzz SPEC``). Exit 0: every seed passed; 1: a seed
failed; 2: bad arguments or a client that fails without fuzzing.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path

from autocue.cli.args import CliParser, fail, one_line, positive_float, positive_int
from autocue.mockllm.fuzz_client import FuzzClient, Run, events
from autocue.mockllm.sources import ScenarioSourceError


def parser() -> argparse.ArgumentParser:
    p = CliParser(prog="autocue fuzz-client", description=__doc__)
    p.add_argument("--cmd", required=True, help="the client command (a shell command; {base_url}, "
                   "{openai_base_url} and {api_key} are replaced; OPENAI_BASE_URL etc. are set)")
    p.add_argument("--seeds", type=positive_int, default=100, help="how many seeds to run (default 100)")
    p.add_argument("--start", type=int, default=0, help="the first seed (default 0)")
    p.add_argument("--scenario", action="append", default=[], metavar="FILE",
                   help="scenario files to play (default: a built-in one with multi-byte text and parallel calls)")
    p.add_argument("--timeout", type=positive_float, default=60.0, help="seconds per client run (default 60)")
    p.add_argument("-o", "--out", default=".autocue/fuzz", metavar="DIR",
                   help="where the shrunk failing streams are written (default .autocue/fuzz)")
    return p


def _write(out: Path, run: Run) -> Path:
    """The run's streams in a new file under ``out`` (never over an existing file)."""
    assert run.spec is not None
    out.mkdir(parents=True, exist_ok=True)
    stem = "fuzz-" + re.sub(r"[^0-9A-Za-z=-]+", "_", run.spec.text)
    for k in range(1000):
        path = out / (stem + (f"-{k}" if k else "") + ".sse")
        try:
            with path.open("xb") as f:
                for n, s in enumerate(run.streams):
                    f.write(f"# request {n + 1}\n".encode() + s + (b"" if s.endswith(b"\n") else b"\n"))
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{out}: too many {stem}*.sse files")


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    logging.getLogger("autocue.mockllm").setLevel(logging.ERROR)  # scenario warnings are not the client's
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        return fail("autocue fuzz-client", f"-o {args.out}: not a directory; give a directory")
    try:
        client = FuzzClient(args.cmd, [Path(s) for s in args.scenario], timeout=args.timeout)
    except (ScenarioSourceError, ValueError) as e:
        return fail("autocue fuzz-client", one_line(str(e)))
    with client:
        plain = client.baseline()
        if plain.code != 0:
            return fail("autocue fuzz-client", f"the client fails without fuzzing ({plain.why('')}); fix it or "
                        "the command first")
        seeds = range(args.start, args.start + args.seeds)
        failing = client.seeds(seeds)
        if failing is None:
            print(f"autocue fuzz-client: {len(seeds)} seeds ({seeds.start}-{seeds.stop - 1}) passed")
            return 0
        assert failing.spec is not None
        print(f"autocue fuzz-client: seed {failing.spec.seed} fails: {failing.why(plain.stdout)}")
        small = client.shrink(failing)
        assert small.spec is not None
        print(f"autocue fuzz-client: shrunk to --fuzz {small.spec.text} ({len(small.streams)} streams, "
              f"{events(small.streams)} events): {small.why(plain.stdout)}")
        path = _write(out, small)
        print(f"autocue fuzz-client: the streams are in {path}")
        where = " ".join(args.scenario) or "SCENARIO"
        print(f"autocue fuzz-client: reproduce: autocue serve {where} --fuzz '{small.spec.text}' (or "
              f"autocue fuzz-client --cmd ... --start {small.spec.seed} --seeds 1)")
        return 1
