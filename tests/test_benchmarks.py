"""The benchmark scripts run and print their figures (smoke only: no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(script: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_bench_agent_loop_prints_every_size_and_the_checks() -> None:
    out = _run("bench_agent_loop.py", "--rounds", "1", "--peer-max-n", "0")
    for n in (50, 200, 800):
        assert f"N={n:4d}" in out
    assert "bare Python loop" in out and "ratio N=800 / N=50" in out and "target ≤ 30 µs/step" in out


def test_bench_harness_prints_every_size_and_the_checks() -> None:
    out = _run("bench_harness.py", "--rounds", "1", "--peer-max-n", "0")
    for n in (50, 200, 800):
        assert f"N={n:4d}  autocue TestSession" in out
    assert "ratio N=800 / N=50" in out and "target ≤ 50 µs/step" in out


def test_bench_sessions_reports_no_garbage_left() -> None:
    out = _run("bench_sessions.py", "--sessions", "5", "--steps", "3")
    assert "5 sessions x 3 steps" in out
    assert "garbage left for the cyclic GC after the batch: 0 objects" in out



def test_bench_validation_fast_path_prints_both_figures() -> None:
    out = _run("bench_validation_fast_path.py", "--rounds", "1")
    assert "agent    with quick path" in out and "harness  with quick path" in out and "the quick path saves" in out


def test_bench_request_path_times_this_tree_another_and_the_floor() -> None:
    src = str(BENCH.parent / "src")
    out = _run("bench_request_path.py", "--requests", "200", "--rounds", "2", "--floor", "--src", f"again={src}")
    assert "request path in process (200 requests a round" in out
    for key in ("this autocue", "this floor", "again autocue", "again floor"):
        line = next(x for x in out.splitlines() if x.strip().startswith(key))
        low, median = (float(v) for v in line.split()[-3::2])
        assert 0 < low <= median


def test_bench_history_prints_every_size_and_both_ratios() -> None:
    out = _run("bench_history.py", "--rounds", "1", "--samples", "3")
    for n in (200, 800):
        assert f"N={n} (last body" in out
    assert out.count("cache / full") == 2 and out.count("cache / parse") == 2


def test_bench_subagents_prints_both_runs_and_the_ratio() -> None:
    out = _run("bench_subagents.py", "--rounds", "1", "--steps", "5")
    assert "N=   5  flat playbook" in out and "N=   5  one subagent level" in out and "(ratio " in out


def test_the_aimock_side_by_side_scripts_the_same_replies_for_both_servers(tmp_path: Path) -> None:
    import importlib.util
    import json

    from autocue.llm.types import TextContent
    from autocue.scenario import load_scenario
    from autocue.script import ScriptedResponse, ScriptedToolCall

    spec = importlib.util.spec_from_file_location("aimock_side", BENCH / "aimock_side.py")
    assert spec is not None and spec.loader is not None
    side = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(side)
    script = load_scenario(side.write_scenario(tmp_path / "s.yaml", 3)).compile()
    fixtures = json.loads(side.write_fixtures(tmp_path / "f.json", 3).read_text())["fixtures"]
    replies = [s for t in script.turns for s in t.steps]
    assert len(replies) == len(fixtures) == 4
    for i, (reply, fixture) in enumerate(zip(replies, fixtures, strict=True)):
        assert isinstance(reply, ScriptedResponse) and fixture["match"] == {"turnIndex": i}
        calls = [(c.name, c.arguments) for c in reply.content if isinstance(c, ScriptedToolCall)]
        assert calls == [(c["name"], c["arguments"]) for c in fixture["response"].get("toolCalls", [])]
        assert "".join(c.text for c in reply.content if isinstance(c, TextContent)) == fixture["response"]["content"]


def test_bench_scenario_big_prints_every_stage_and_the_ratio() -> None:
    out = _run("bench_scenario_big.py", "--bytes", "5000", "--memory")
    for stage in ("floor", "yamlpos", "scenario", "playable"):
        assert f"  {stage:<9}" in out and "MB peak (traced)" in out
    assert "ratio playable / floor: " in out


def test_bench_websocket_prints_both_sides_and_the_ratio() -> None:
    out = _run("bench_websocket.py", "--turns", "3", "--rounds", "1")
    assert "Responses over HTTP" in out and "Responses over WebSocket" in out and "ratio WebSocket / HTTP" in out


def test_bench_otel_prints_both_sides_and_the_exports() -> None:
    out = _run("bench_otel.py", "--rounds", "1", "--sessions", "1", "--steps", "2")
    assert "client wall ms/request: off" in out and "server CPU  ms/request: off" in out
    assert " 0 OTLP exports" not in out  # the --otel server's spans reached the sink
