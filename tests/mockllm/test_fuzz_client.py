"""``autocue fuzz-client``: a client that assembles tool-call deltas by index passes every seed;
one that appends argument fragments to the last call started (wrong when parallel calls
interleave) fails, and the failure shrinks to the one feature that breaks it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from proc_helpers import gone_within, kill_quietly

from autocue.mockllm.fuzz_client import FuzzClient
from autocue.mockllm.wire.fuzz import FEATURES, parse_fuzz

CLIENT = r'''
import json, sys
import httpx2

base, key, mode = sys.argv[1], sys.argv[2], sys.argv[3]
body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "fuzz the client"}]}
text, calls, order = "", {}, []
with httpx2.stream("POST", base + "/chat/completions", json=body, headers={"authorization": "Bearer " + key}) as r:
    buf = b""
    for chunk in r.iter_bytes():
        buf += chunk.replace(b"\r", b"")
        while b"\n\n" in buf:
            frame, buf = buf.split(b"\n\n", 1)
            data = frame.decode()
            if data.startswith(":") or data == "data: [DONE]":
                continue
            delta = json.loads(data[len("data: "):])["choices"][0]["delta"] if '"choices":[{' in data else {}
            text += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                if tc.get("id"):
                    calls[tc["index"]] = [tc["function"]["name"], ""]
                    order.append(tc["index"])
                k = tc["index"] if mode == "good" else order[-1]  # the bug: the last call started
                calls[k][1] += tc["function"].get("arguments") or ""
print(text)
for k in sorted(calls):
    name, args = calls[k]
    print(name, json.dumps(json.loads(args), sort_keys=True, ensure_ascii=False))
'''


def ids_out(streams: list[bytes]) -> list[bytes]:
    """The streams without what names the session (ids) or the time (created)."""
    return [re.sub(rb'"(id|created)":("[^"]*"|\d+)', b"", s) for s in streams]


def command(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    return f"{sys.executable} {script} {{openai_base_url}} {{api_key}} {mode}"


@pytest.mark.slow
def test_a_client_that_assembles_by_index_passes_every_seed(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "autocue", "fuzz-client", "--cmd", command(tmp_path, "good"),
                        "--seeds", "8", "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=110)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout.strip() == "autocue fuzz-client: 8 seeds (0-7) passed"
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_broken_client_fails_and_shrinks_to_interleaving(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "autocue", "fuzz-client", "--cmd", command(tmp_path, "bad"),
                        "--seeds", "30", "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=110)
    assert p.returncode == 1, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("autocue fuzz-client: seed ") and " fails: exit 1: " in lines[0]
    spec = parse_fuzz(lines[1].split("--fuzz ")[1].split(" ")[0])
    assert spec.interleave
    assert [f for f in FEATURES if getattr(spec, f)] == ["interleave"]  # every other feature shrunk away
    assert spec.splits <= 1
    written = list((tmp_path / "out").glob("fuzz-*.sse"))
    assert len(written) == 1 and b'"tool_calls"' in written[0].read_bytes()
    assert f"--fuzz '{spec.text}'" in lines[3]


def test_the_shrunk_spec_still_fails_and_the_plain_one_passes(tmp_path: Path) -> None:
    with FuzzClient(command(tmp_path, "bad")) as c:
        assert c.baseline().code == 0
        failing = c.seeds(range(30))
        assert failing is not None
        small = c.shrink(failing)
        assert small.spec is not None
        again = c.run(small.spec)
        assert again.failed and ids_out(again.streams) == ids_out(small.streams)  # the same spec, the same stream
        assert not c.run(small.spec.without("interleave")).failed


def test_a_client_failing_without_fuzz_is_one_line_exit_2(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "autocue", "fuzz-client", "--cmd", "exit 3", "--seeds", "2"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.strip() == ("autocue fuzz-client: the client fails without fuzzing (exit 3); fix it or the "
                                "command first")


def test_a_client_past_its_timeout_is_stopped_with_its_whole_group(tmp_path: Path) -> None:
    # the command runs through the process runner: the timeout reaches the client's background child too
    with FuzzClient("sleep 30 & echo $! > bg.pid; echo started; sleep 30", timeout=0.5, cwd=tmp_path) as fc:
        run = fc.run(None)
    background = int((tmp_path / "bg.pid").read_text())
    try:
        assert run.code == 124 and run.stdout == "started\n" and "timed out after 0.5 s" in run.stderr
        assert gone_within(background, 2.0), "the client's background child outlived the timeout"
    finally:
        kill_quietly(background)
