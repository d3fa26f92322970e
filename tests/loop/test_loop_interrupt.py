"""An interrupt at any moment of a command backend's spawn ends the loop and the backend's group.

The race (issue 15): a SIGINT that lands while ``create_subprocess_exec`` is still connecting
the pipes cancelled the spawn after the fork, before the backend registered the process
group, so nothing killed it and the loop waited for the grandchild holding the pipes.

``test_interrupt_at_every_step_of_the_spawn`` walks the interrupt through the event-loop
steps of the spawn (deterministic); ``test_sigint_many_times`` repeats the real CLI scenario
(``autocue loop`` as a subprocess, SIGINT as soon as the first iteration starts) 10 times,
50 with ``--fuzz-long`` or ``AUTOCUE_LOOP_INTERRUPT_RUNS=N``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autocue.loop import CommandBackend, EventLoop, TerminationReason, config_from_dict, read_session

CLI = [sys.executable, "-m", "autocue.cli.main", "loop"]
# the backend starts a grandchild that holds the pipes, and records both pids as soon as it runs
BACKEND_SCRIPT = 'echo $$ > backend.pid; sleep 30 & echo $! > grandchild.pid; wait'


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _assert_backend_gone(ws: Path) -> None:
    deadline = time.monotonic() + 5
    for name in ("backend.pid", "grandchild.pid"):
        f = ws / name
        text = f.read_text().strip() if f.exists() else ""
        if not text:
            continue
        pid = int(text)
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)  # don't leave it behind the failing test
            pytest.fail(f"{name} {pid} still runs after the interrupt")


async def _interrupt_after_steps(ws: Path, steps: int) -> tuple[object, float]:
    backend = CommandBackend("sh", ["-c", BACKEND_SCRIPT], kill_grace_secs=0.5)
    loop: EventLoop | None = None

    def hop(left: int) -> None:
        assert loop is not None
        if left == 0:
            loop.interrupt()
        else:
            asyncio.get_running_loop().call_soon(hop, left - 1)

    def status(line: str) -> None:
        # called just before the backend task is created: count event-loop steps from here
        if line.startswith("[iteration 1]"):
            asyncio.get_running_loop().call_soon(hop, steps)

    loop = EventLoop(config_from_dict({}), prompt="go", workspace=ws, backend=backend, on_status=status)
    start = time.monotonic()
    result = await asyncio.wait_for(loop.run(), 10)
    return result, time.monotonic() - start


def test_interrupt_at_every_step_of_the_spawn(tmp_path: Path) -> None:
    for steps in range(16):
        ws = tmp_path / f"steps{steps}"
        result, took = asyncio.run(_interrupt_after_steps(ws, steps))
        assert getattr(result, "reason", None) is TerminationReason.INTERRUPTED, (steps, result)
        assert took < 5, f"interrupt after {steps} event-loop steps took {took:.1f}s: the loop waited for the backend"
        _assert_backend_gone(ws)
    # a backend shell that survived before writing its pid would write it now
    time.sleep(0.3)
    for steps in range(16):
        _assert_backend_gone(tmp_path / f"steps{steps}")


def _runs(config: pytest.Config) -> int:
    env = os.environ.get("AUTOCUE_LOOP_INTERRUPT_RUNS")
    if env:
        return int(env)
    long = config.getoption("--fuzz-long") or os.environ.get("AUTOCUE_FUZZ_LONG") == "1"
    return 50 if long else 10


def _sigint_once(ws: Path, delay: float) -> None:
    ws.mkdir()
    (ws / "autocue.loop.yml").write_text(f"backend:\n  command: sh\n  args: ['-c', '{BACKEND_SCRIPT}']\n")
    proc = subprocess.Popen([*CLI, "go"], cwd=ws, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    try:
        first = proc.stderr.readline()  # "[iteration 1] hat ...": printed just before the spawn
        assert first.startswith(b"[iteration 1]"), first
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        _assert_backend_gone(ws)
        pytest.fail(f"autocue loop did not end within 15s of SIGINT (delay {delay:.3f}s)")
    assert proc.returncode == 130, (delay, err)
    recs = read_session(ws / ".autocue" / "session.jsonl")
    assert recs[-1].data["reason"] == "Interrupted"
    _assert_backend_gone(ws)


@pytest.mark.slow
def test_sigint_many_times(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    runs = _runs(request.config)
    for i in range(runs):
        # from "at once" to "the backend is surely running", spread over the runs
        _sigint_once(tmp_path / f"run{i}", delay=(i % 10) * 0.003)
