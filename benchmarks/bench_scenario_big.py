"""A large legal scenario (default 2 MiB, the size limit): autocue's load against the floor of
parsing the same YAML with the YAML library alone.

    python benchmarks/bench_scenario_big.py [--bytes 2097152] [--rounds 1]

Stages, each timed on the same text (best of ``--rounds``; ``--memory``: and its peak traced memory):

- ``floor``: ``ruamel.yaml`` ``YAML(typ="safe", pure=True).load`` (the parser autocue uses, plain data, no positions);
- ``yamlpos``: ``autocue.yamlpos.parse_documents`` (the same parse, plus positions and the nesting/alias limits);
- ``scenario``: ``load_scenario_text`` (yamlpos, then the scenario model);
- ``playable``: ``autocue.mockllm.sources.load_text`` (what ``autocue serve`` and the admin API do: load and compile).

It prints each stage's seconds and MB and the ratio of ``playable`` to ``floor`` (autocue's share is the rest).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def big_scenario(size: int) -> str:
    """A legal scenario of about ``size`` bytes in seed 004 forms: turns of a reply, a tool call and a user input."""
    out = ["name: big\ninitialPrompt: go\ntimeline:\n"]
    total, i = len(out[0]), 0
    while total < size:
        item = (f'  - llmResponse:\n      - think: [[0, "thinking about step {i}"]]\n'
                f'      - assistant: [[0, "reply number {i} with some words in it"]]\n'
                f'  - agentToolUse: {{toolName: runCmd, args: {{cmd: "echo {i}"}}}}\n'
                f'  - userInputs: [[0, "next {i}"]]\n')
        if total + len(item.encode()) > size:  # the limit is a hard one: stay at or under it
            break
        out.append(item)
        total += len(item.encode())
        i += 1
    return "".join(out)


def _measure(fn: Callable[[], Any], rounds: int, memory: bool) -> tuple[float, float | None]:
    """(best seconds of ``rounds`` untraced runs, peak traced MB of one more run when ``memory``)."""
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    if not memory:
        return best, None
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return best, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=2 * 1024 * 1024)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--memory", action="store_true", help="also trace each stage's peak memory (one slow run more)")
    args = ap.parse_args(argv)
    from ruamel.yaml import YAML

    from autocue.mockllm.sources import load_text
    from autocue.scenario import load_scenario_text
    from autocue.yamlpos import parse_documents

    text = big_scenario(args.bytes)
    print(f"scenario: {len(text):,} bytes, {text.count(chr(10)):,} lines")
    stages: dict[str, Callable[[], Any]] = {
        "floor": lambda: YAML(typ="safe", pure=True).load(text),
        "yamlpos": lambda: parse_documents(text, "big.yaml"),
        "scenario": lambda: load_scenario_text(text, "big.yaml"),
        "playable": lambda: load_text(text, "big.yaml"),
    }
    seconds: dict[str, float] = {}
    for name, fn in stages.items():
        s, mb = _measure(fn, args.rounds, args.memory)
        seconds[name] = s
        print(f"  {name:<9} {s:8.2f} s" + (f"  {mb:8.1f} MB peak (traced)" if mb is not None else ""))
    print(f"ratio playable / floor: {seconds['playable'] / seconds['floor']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
