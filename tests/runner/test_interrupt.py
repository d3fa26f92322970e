"""Every ending of ``autocue run`` cleans up: SIGINT (Ctrl-C) or SIGTERM (CI cancellation, ``timeout``)
mid-timeline stops the program under test's whole process group (a program that ignores SIGTERM
included: TERM, a grace, KILL), removes the run's temporary workspace (kept only with ``--keep``,
and said where), deletes nothing autocue did not create, and exits 130 or 143 with one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from runner_helpers import scenario

from autocue.runner.interrupt import Interrupt

pytestmark = pytest.mark.slow

STUBBORN = textwrap.dedent("""\
    import os, signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
    print("ready", flush=True)
    time.sleep(300)
""")
"""The program under test: ignores SIGTERM, writes its pid into the folder it is given."""

TIMELINE = """\
    name: {name}
    timeline:
      - assert: {{text: {{contains: [ready]}}}}
      - advanceMs: 60000
    """
"""A scenario mid-timeline for a minute (``--speed 1``) once the program is up."""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _interrupt(tmp_path: Path, sig: int, names: list[str], *extra: str, timeline: str = TIMELINE,
               processes: int = 1) -> tuple[subprocess.CompletedProcess[str], float, list[int], Path]:
    """Start ``autocue run`` on the scenarios ``names`` (a private TMPDIR holding a folder autocue did not
    make), send ``sig`` once ``processes`` per scenario wrote their pids into ``pids/``, and return the
    outcome, the seconds from the signal to the exit, the pids and the TMPDIR."""
    (tmp_path / "prog.py").write_text(STUBBORN, encoding="utf-8")
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    tmp = tmp_path / "tmp"
    (tmp / "autocue-run-not-ours").mkdir(parents=True)
    (tmp / "autocue-run-not-ours" / "keep.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    for name in names:
        scenario(tmp_path / "scenarios", timeline.format(name=name, pids=pids_dir), f"{name}.yaml")
    cmd = f"{sys.executable} {tmp_path / 'prog.py'} {pids_dir}"
    proc = subprocess.Popen([sys.executable, "-m", "autocue", "run", str(tmp_path / "scenarios"), "--cmd", cmd,
                             "--out", str(tmp_path / "out"), "--speed", "1", "--timeout", "120", *extra],
                            env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    pids: list[int] = []
    try:
        end = time.monotonic() + 30
        while len(pids) < len(names) * processes and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.05)
            pids = [int(p.name) for p in pids_dir.iterdir()]
        assert len(pids) == len(names) * processes, f"the programs did not start: {proc.poll()} {pids}"
        time.sleep(0.5)  # the timeline is on its advanceMs
        proc.send_signal(sig)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        left = [p for p in pids if _alive(p)]
        for p in left:  # never leave an orphan behind, even when the test fails
            os.kill(p, signal.SIGKILL)
    assert not left, f"the program under test outlived autocue run: {left}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), took, pids, tmp


def _ours(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.glob("autocue-run-*") if p.name != "autocue-run-not-ours")


@pytest.mark.parametrize(("sig", "code", "jobs"), [(signal.SIGINT, 130, "1"), (signal.SIGTERM, 143, "2")],
                         ids=["sigint", "sigterm-j2"])
def test_an_interrupted_run_stops_the_program_that_ignores_sigterm_and_removes_its_workspace(
        tmp_path: Path, sig: int, code: int, jobs: str) -> None:
    names = ["first", "second"] if jobs == "2" else ["only"]
    done, took, pids, tmp = _interrupt(tmp_path, sig, names, "-j", jobs)
    assert done.returncode == code, (done.returncode, done.stderr)
    assert took < 10, took  # TERM, a grace, KILL: seconds, not the scenario's minute
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"interrupted by {signal.Signals(sig).name}" in lines[0], done.stderr
    assert "temporary workspaces removed" in lines[0], lines
    assert not _ours(tmp), _ours(tmp)  # the run's workspaces are gone
    assert (tmp / "autocue-run-not-ours" / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert len(pids) == len(names)
    assert list((tmp_path / "out").rglob("session.cast")), "the recordings (the user's --out) stay"


def test_an_interrupted_run_keeps_its_workspace_with_keep_and_says_where(tmp_path: Path) -> None:
    done, took, _, tmp = _interrupt(tmp_path, signal.SIGINT, ["only"], "--keep")
    assert done.returncode == 130 and took < 10, (done.returncode, took, done.stderr)
    [kept] = _ours(tmp)
    assert f"workspace kept (--keep): {tmp / kept / 'work'}" in done.stderr, done.stderr
    assert (tmp / "autocue-run-not-ours" / "keep.txt").is_file()


def test_an_interrupt_during_a_user_command_stops_its_group_too(tmp_path: Path) -> None:
    timeline = """\
    name: {name}
    timeline:
      - assert: {{text: {{contains: [ready]}}}}
      - userCommand: {{cmd: "trap '' TERM; echo > {pids}/$$; sleep 300 & echo > {pids}/$!; wait"}}
    """
    done, took, pids, tmp = _interrupt(tmp_path, signal.SIGTERM, ["only"], timeline=timeline, processes=3)
    assert done.returncode == 143 and took < 10, (done.returncode, took, done.stderr)
    assert len(pids) == 3 and not _ours(tmp), (pids, _ours(tmp))


def _probe_runs(config: pytest.Config) -> int:
    long = config.getoption("--fuzz-long") or os.environ.get("AUTOCUE_FUZZ_LONG") == "1"
    return 30 if long else 3


def test_interrupts_at_any_moment_of_a_run_leave_nothing_behind(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The probe: SIGINT or SIGTERM at moments spread from autocue's start-up (before its handler exists)
    to the program's sleep (3 runs; 30 with ``--fuzz-long``). Whenever it lands: autocue ends within
    seconds with 130/143 (or killed by that signal before anything was started), no process it started
    runs on, no workspace of its stays, and what it did not create is untouched."""
    runs = _probe_runs(request.config)
    (tmp_path / "prog.py").write_text(STUBBORN, encoding="utf-8")
    for i in range(runs):
        sig = (signal.SIGINT, signal.SIGTERM)[i % 2]
        delay = 2.5 * i / max(1, runs - 1)
        case = tmp_path / f"run{i}"
        pids_dir, tmp = case / "pids", case / "tmp"
        pids_dir.mkdir(parents=True)
        (tmp / "autocue-run-not-ours").mkdir(parents=True)
        path = scenario(case, TIMELINE.format(name="probe"))
        cmd = f"{sys.executable} {tmp_path / 'prog.py'} {pids_dir}"
        proc = subprocess.Popen([sys.executable, "-m", "autocue", "run", str(path), "--cmd", cmd, "--out",
                                 str(case / "out"), "--speed", "1", "--timeout", "120"],
                                env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(delay)
            proc.send_signal(sig)
            t0 = time.monotonic()
            _, err = proc.communicate(timeout=30)
            took = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
            left = [p for p in (int(x.name) for x in pids_dir.iterdir()) if _alive(p)]
            for p in left:
                os.kill(p, signal.SIGKILL)
        where = f"run {i}: {signal.Signals(sig).name} {delay:.2f} s after the start"
        assert proc.returncode in (128 + sig, -sig), (where, proc.returncode, err)
        assert took < 10 and not left, (where, took, left)
        assert sorted(p.name for p in tmp.iterdir()) == ["autocue-run-not-ours"], (where, list(tmp.iterdir()))
        assert "Traceback" not in err, (where, err)


def test_the_handler_is_installed_in_the_main_thread_only() -> None:
    import threading

    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []

    def elsewhere() -> None:
        with Interrupt().handling():
            seen.append(signal.getsignal(signal.SIGTERM))

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join(5)
    assert seen == [before]
    stop = Interrupt()
    with stop.handling():
        assert signal.getsignal(signal.SIGTERM) == stop.trigger
    assert signal.getsignal(signal.SIGTERM) == before
