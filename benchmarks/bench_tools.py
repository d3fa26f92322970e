"""Cost of one call of each built-in tool (direct ``execute``, real files and processes).

Builds a tree of 200 Python files (~60 lines each) in a temp dir, then times each tool call
over several repetitions and prints the median in µs per call. grep runs with both backends
(ripgrep when installed, and pure Python). bash is dominated by process start-up.

    python benchmarks/bench_tools.py [--reps 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from autocue.agent import AgentTool
from autocue.llm.abort import AbortController
from autocue.tools import BUILTIN_TOOL_NAMES, create_builtin_tools, create_grep_tool, find_ripgrep


def build_tree(root: Path, files: int = 200) -> None:
    for i in range(files):
        d = root / f"pkg{i % 10}" / f"sub{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def func_{i}_{j}(x):\n    return x * {j}  # marker {j % 13}\n\n" for j in range(20))
        (d / f"mod{i}.py").write_text(body)
    (root / "big.txt").write_text("".join(f"line {i} " + "x" * 60 + "\n" for i in range(5000)))
    (root / "edit_me.txt").write_text("alpha\nbeta\ngamma\n" * 100 + "UNIQUE_TOKEN\n")


async def time_call(tool: AgentTool, params: dict[str, Any], reps: int, before: Any = None) -> float:
    signal = AbortController().signal
    samples = []
    for _ in range(reps):
        if before is not None:
            before()
        t0 = time.perf_counter()
        await tool.execute("bench", params, signal, lambda partial: None)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


async def main(reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_tree(root)
        tools = create_builtin_tools(root, BUILTIN_TOOL_NAMES)
        edit_file = root / "edit_me.txt"
        original = edit_file.read_text()

        def reset_edit() -> None:
            edit_file.write_text(original)

        rows: list[tuple[str, float]] = [
            ("read small file (60 lines)", await time_call(tools["read"], {"path": "pkg0/sub0/mod0.py"}, reps)),
            ("read 5000-line file (truncated to 2000)", await time_call(tools["read"], {"path": "big.txt"}, reps)),
            (
                "write 2 KB file (new dir)",
                await time_call(tools["write"], {"path": "out/new.txt", "content": "y" * 2048}, reps),
            ),
            (
                "edit unique text in 300-line file",
                await time_call(
                    tools["edit"],
                    {"path": "edit_me.txt", "oldText": "UNIQUE_TOKEN", "newText": "DONE"},
                    reps,
                    reset_edit,
                ),
            ),
            ("ls directory", await time_call(tools["ls"], {"path": "pkg0"}, reps)),
            ("find **/*.py (200 files)", await time_call(tools["find"], {"pattern": "**/*.py"}, reps)),
            ("bash 'true'", await time_call(tools["bash"], {"command": "true"}, reps)),
            ("bash 'seq 1 100000' (truncated)", await time_call(tools["bash"], {"command": "seq 1 100000"}, reps)),
        ]
        grep_params = {"pattern": r"marker 1[0-2]", "limit": 100}
        rows.append(
            (
                "grep python (200 files, 100 matches)",
                await time_call(create_grep_tool(root, backend="python"), grep_params, reps),
            )
        )
        rows.append(
            (
                "grep python, no match (full scan)",
                await time_call(create_grep_tool(root, backend="python"), {"pattern": "NOPE_NOT_THERE"}, reps),
            )
        )
        if find_ripgrep():
            rows.append(
                (
                    "grep rg (200 files, 100 matches)",
                    await time_call(create_grep_tool(root, backend="rg"), grep_params, reps),
                )
            )
            rows.append(
                (
                    "grep rg, no match (full scan)",
                    await time_call(create_grep_tool(root, backend="rg"), {"pattern": "NOPE_NOT_THERE"}, reps),
                )
            )
        else:
            print("(ripgrep not installed: rg rows skipped)")
        for p in root.glob("../autocue-bash-*.log"):
            p.unlink()
    width = max(len(name) for name, _ in rows)
    print(f"{'tool call':<{width}}  median µs/call  (reps={reps})")
    for name, us in rows:
        print(f"{name:<{width}}  {us:>12,.0f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    asyncio.run(main(ap.parse_args().reps))
