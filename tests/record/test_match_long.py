"""Issue 32 req 7: a recording of 1,000 turns (an agent loop whose every request carries the whole
conversation, fingerprinted as ``autocue record`` writes it) replays strictly, every request matching
its recorded fingerprint. Timing is the benchmark's (benchmarks/bench_record.py: server CPU); here the
server's own CPU time is only reported, never asserted."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import orjson
import pytest

from autocue.mockllm.incoming import Incoming
from autocue.mockllm.options import ServerOptions
from autocue.mockllm.state import MockState

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_record.py"


@pytest.mark.slow
def test_a_recording_of_1000_turns_replays_strictly(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("bench_record", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "long.yaml"
    bodies = bench.long_recording(path, 1000)
    state = MockState([path], ServerOptions())  # the file's server.match: strict
    t0 = time.process_time()
    statuses = []
    for raw in bodies:
        req = Incoming(api="chat", body=orjson.loads(raw), headers={"authorization": "Bearer k"},
                       path="/v1/chat/completions", raw_size=len(raw), stream=False, model="gpt-bench",
                       session_key="k", raw=raw)  # as the app makes it: the journal keeps the bytes
        statuses.append(state.respond(req).status)
    cpu = time.process_time() - t0
    (s,) = state.session_status()
    assert statuses == [200] * 1000 and s["errors"] == [] and s["remaining"] == 0, s["errors"][:1]
    print(f"1000 strict turns: {cpu:.2f} s CPU in MockState")
    # the same file fails the moment the agent sends something else
    changed = orjson.loads(bodies[500])
    changed["messages"][-1]["content"] = "999 files"
    state = MockState([path], ServerOptions())
    for raw in bodies[:500]:
        state.respond(Incoming(api="chat", body=orjson.loads(raw), headers={}, path="/v1/chat/completions",
                               raw_size=len(raw), stream=False, model="gpt-bench", session_key="k", raw=raw))
    out = state.respond(Incoming(api="chat", body=changed, headers={}, path="/v1/chat/completions", raw_size=0,
                                 stream=False, model="gpt-bench", session_key="k"))
    assert out.status == 400 and out.body is not None
    msg = str(out.body)
    assert "reply 501 (turn 1, step 501)" in msg and "messages[1001] (tool): content differs" in msg, msg
