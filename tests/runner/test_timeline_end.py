"""The end of a timeline, and the first key of a run (issue 26, requirements 1 and 2).

A program still running once its timeline is done is ended by the runner when the scenario has no
``expect.exitCode`` (its quit input, then SIGTERM and SIGKILL of its group), and the run passes or
fails on its checks; with ``expect.exitCode`` it must exit by itself. The first ``userInputs``
event waits for the launch profile's ``ready`` text, as the typed ``initialPrompt`` does.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import pytest
from proc_helpers import gone_within, kill_quietly
from runner_helpers import ECHO_PROG, files_block, kinds, one, scenario
from test_agent_profiles import FAKE_TUI

from autocue.cli.main import main

pytestmark = pytest.mark.slow


def repl_scenario(tmp_path: Path, extra: str = "") -> Path:
    """A line-reading program (it ends at EOF or ``bye``) and a timeline that never quits it."""
    return scenario(tmp_path, f"""\
name: repl
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": ECHO_PROG})}
timeline:
  - userInputs: [[0, "hello"]]
  - assert:
      text: {{contains: ["got hello"]}}
{extra}""")


def test_a_program_still_running_after_its_timeline_is_ended_by_the_runner(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repl_scenario(tmp_path)
    t0 = time.monotonic()
    r = one(path, timeout=60)
    assert time.monotonic() - t0 < 10  # was: a `timeout` failure after the whole 60 s
    assert r.passed, r.failures
    assert r.ended_by_runner == "quit input" and r.exit_code == 0  # <ctrl-d>: EOF, the program ends cleanly
    assert r.last_screen == "ready\nhello\ngot hello"  # the screen of the timeline's end, before the quit input
    [note] = [t for t in r.transcript if " end: " in t]
    assert note.endswith("ended by the runner: typed its quit input '<ctrl-d>': it exited with 0 after "
                         f"{note.rsplit(' after ', 1)[1]}")
    # the summary line, --json and JUnit say so
    junit = tmp_path / "junit.xml"
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--junit", str(junit)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("PASS repl (") and line.endswith(f"s, ended by the runner: quit input) {path}")
    assert "ended by the runner: quit input" in junit.read_text()
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--json"]) == 0
    [s] = json.loads(capsys.readouterr().out)["scenarios"]
    assert s["ended_by_runner"] == "quit input" and s["passed"]


def test_with_expect_exit_code_the_program_must_exit_by_itself(tmp_path: Path) -> None:
    path = repl_scenario(tmp_path, "expect: {exitCode: 0}\n")
    t0 = time.monotonic()
    r = one(path, timeout=2)
    assert time.monotonic() - t0 < 8
    assert kinds(r) == ["timeout"] and not r.ended_by_runner
    assert "expect.exitCode says it exits by itself" in r.failures[0].message
    assert "drop expect.exitCode to let the runner end it" in r.failures[0].message


STUBBORN = textwrap.dedent("""\
    import os, signal, subprocess, tty
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the child: it ignores SIGTERM too
    tty.setraw(0)                                  # Ctrl-D is a byte, not EOF
    child = subprocess.Popen(["sleep", "60"])
    with open("pids", "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.write(1, b"stubborn\\r\\n")
    while True:
        os.write(1, b"ignored " + repr(os.read(0, 100)).encode() + b"\\r\\n")
""")


def test_a_program_that_ignores_its_quit_input_and_sigterm_is_killed_with_its_group(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: stubborn
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": STUBBORN})}
timeline:
  - assert:
      text: {{contains: ["stubborn"]}}
""")
    t0 = time.monotonic()
    r = one(path, timeout=60, keep=True)
    pids = [int(x) for x in (Path(r.workspace or "") / "pids").read_text().split()]
    try:
        assert time.monotonic() - t0 < 10  # 2 s of quiet after the quit input, then SIGTERM, 1 s, SIGKILL
        assert r.passed, r.failures
        assert r.ended_by_runner == "SIGKILL" and r.exit_code == 137
        assert any("s later: its process group was stopped (SIGTERM, then SIGKILL)" in t
                   for t in r.transcript)
        assert all(gone_within(pid, 2.0) for pid in pids), "an orphan outlived the run"
    finally:
        for pid in pids:
            kill_quietly(pid)


LEAVES_ON_QUIT = textwrap.dedent("""\
    import os, sys, tty
    tty.setraw(0)
    os.write(1, b"\\x1b[?1049h\\x1b[2J\\x1b[H> drawn on the alternate screen")
    while b"\\x04" not in os.read(0, 100):
        pass
    os.write(1, b"\\x1b[?1049l")  # back to the (empty) main screen, as a TUI does when it quits
""")


def test_the_last_screen_of_a_program_the_runner_ended_is_the_timelines(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: leaves
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": LEAVES_ON_QUIT})}
timeline:
  - assert:
      text: {{contains: ["drawn on the alternate screen"]}}
""")
    r = one(path, timeout=60)
    assert r.passed and r.ended_by_runner == "quit input" and r.exit_code == 0, r.failures
    assert r.last_screen == "> drawn on the alternate screen"


ASK_THEN_WAIT = textwrap.dedent("""\
    import json, sys, time, urllib.request
    print("asking", flush=True)
    for n in range(int(sys.argv[3])):
        time.sleep(0.4)  # longer than the quiet window: the last reply comes after the timeline's last event
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        req = urllib.request.Request(sys.argv[1] + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + sys.argv[2],
                                              "Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(req))
        print("reply:", reply["choices"][0]["message"]["content"], flush=True)
    sys.stdin.read()  # then waits for its user, until EOF
""")


def ask_scenario(tmp_path: Path, requests: int) -> Path:
    return scenario(tmp_path, f"""\
name: ask
ah: {{cmd: "python3 prog.py {{openai_base_url}} {{api_key}} {requests}"}}
{files_block(**{"prog.py": ASK_THEN_WAIT})}
timeline:
  - llmResponse:
      - assistant: [[0, "pong"]]
  - assert:
      text: {{contains: ["reply: pong"]}}
  - llmResponse:
      - assistant: [[0, "second"]]
""")


def test_the_quit_input_waits_for_the_replies_after_the_last_event(tmp_path: Path) -> None:
    r = one(ask_scenario(tmp_path, 2), timeout=60)
    assert r.passed and r.ended_by_runner == "quit input", r.failures
    assert r.last_screen == "asking\nreply: pong\nreply: second"  # not cut off before its last answer


def test_replies_a_program_never_asked_for_still_fail_a_run_the_runner_would_end(tmp_path: Path) -> None:
    t0 = time.monotonic()
    r = one(ask_scenario(tmp_path, 1), timeout=3)
    assert time.monotonic() - t0 < 10
    assert kinds(r) == ["timeout", "llm"] and not r.ended_by_runner
    assert "waiting for the program to ask for its scripted replies: 1 of 2 served" in r.failures[0].message
    assert r.failures[1].message == 'the program left 1 of 2 scripted replies unplayed (next: say("second"))'


def fake_tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ready: str) -> Path:
    """The fake TUI of test_agent_profiles.py as the CLI of a profile ``faketui``; its profiles file."""
    bin_dir = tmp_path / "agents" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "faketui").write_text(f"#!{sys.executable}\n{FAKE_TUI}")
    (bin_dir / "faketui").chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    prof = tmp_path / "agents.toml"
    prof.write_text(f'[agents.faketui]\nbinary = "faketui"\nprint_args = []\ntui_args = []\nready = "{ready}"\n'
                    "key_gap = 0.25\nquit_input = '<ctrl-c><ctrl-c>'\n")
    return prof


def test_the_first_user_inputs_wait_for_the_profiles_ready_text(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A TUI whose start-up screen drops the keys typed while it starts (as Codex 0.169's does): the
    prompt typed as the first ``userInputs`` event (no ``initialPrompt``) waits for ``READY>``; the
    runner ends the program with the profile's quit input."""
    prof = fake_tui(tmp_path, monkeypatch, "READY>")
    path = scenario(tmp_path, """
        name: typed
        timeline:
          - userInputs: [[0, "hello there<enter>"]]
          - assert:
              text: {contains: ["READY> hello there"]}
        """)
    r = one(path, agent="faketui", agents_files=(str(prof),), keep=True)
    assert r.passed, (r.failures, r.last_screen)
    log = json.loads((Path(r.workspace or "") / "keys.json").read_text())
    assert [x[1] for x in log] == ["hello there", "\r", "\x03", "\x03"]  # nothing typed into the start-up screen
    assert r.ended_by_runner == "quit input" and r.exit_code == 0
    assert any("UserInputs: waited" in t and "for 'READY>' on screen before the first key" in t for t in r.transcript)


def test_print_mode_inputs_do_not_wait_for_a_ready_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``target: cli`` inputs to an agent in print mode: no input box is drawn, so no ``ready`` wait."""
    prof = fake_tui(tmp_path, monkeypatch, "never on screen")
    path = scenario(tmp_path, """
        name: print
        initialPrompt: hi
        timeline:
          - userInputs: [[0, "<ctrl-c><ctrl-c>"]]
            target: cli
        """)
    t0 = time.monotonic()
    r = one(path, agent="faketui", agents_files=(str(prof),), timeout=30)
    assert time.monotonic() - t0 < 15
    assert "timeout" not in kinds(r), r.failures
