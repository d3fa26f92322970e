"""Every timeline event and failure kind, each with a real program in a real pty."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from proc_helpers import gone_within, kill_quietly
from runner_helpers import ECHO_PROG, RAW_KEYS_PROG, at, files_block, kinds, one, scenario

from autocue.runner.cast import read_cast

pytestmark = pytest.mark.slow


def echo_scenario(tmp_path: Path, timeline: str, extra: str = "", name: str = "echo") -> Path:
    return scenario(tmp_path, f"name: {name}\nah: {{cmd: python3 prog.py}}\n{files_block(**{'prog.py': ECHO_PROG})}"
                              f"{extra}timeline:\n{timeline}")


def test_inputs_are_typed_and_the_screen_and_recording_follow(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, """\
  - userInputs: [[0, "hello"]]
  - screenshot: after_hello
  - userInputs: [[0, "bye"]]
""", "expect: {exitCode: 0}\n")
    r = one(path)
    assert r.passed, r.failures
    assert r.exit_code == 0
    assert r.last_screen == "ready\nhello\ngot hello\nbye\ngot bye\nend"
    golden = Path(r.screenshots["after_hello"])
    assert golden == tmp_path / "goldens/cmd/echo/100x30/screenshots/after_hello.golden"  # next to the scenario
    assert golden.read_text() == "ready\nhello\ngot hello\n"
    header, events = read_cast(Path(r.out_dir or "") / "session.cast")
    assert (header["version"], header["width"], header["height"]) == (2, 100, 30)
    codes = {e[1] for e in events}
    assert {"o", "i", "m"} <= codes
    assert ["i", "hello"] in [e[1:] for e in events] and ["i", "\r"] in [e[1:] for e in events]
    assert r.workspace is None  # removed after a pass


def test_key_names_reach_a_raw_mode_program_as_separate_writes(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: keys
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": RAW_KEYS_PROG})}
timeline:
  - userInputs: [[0, "ab<enter>"], [0, "<esc>"], [0, "<up><ctrl-c><tab>"], [0, "q<lt>x>"]]
  - screenshot: keys
expect: {{exitCode: 0}}
""")
    r = one(path)
    assert r.passed, r.failures
    # each key is its own read; ctrl-c is a byte in raw mode, not a signal; <lt> is text, so a line
    assert r.last_screen.splitlines() == ["raw", "b'ab'", "b'\\r'", "b'\\x1b'", "b'\\x1b[A'", "b'\\x03'", "b'\\t'",
                                          "b'q<x>'"]


def test_a_later_golden_must_match_else_diff_actual_and_untouched_golden(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, """\
  - userInputs: [[0, "hello"]]
  - screenshot: s1
  - userInputs: [[0, "bye"]]
""")
    # The first run records the golden: a long quiet window so a loaded machine cannot snap it early.
    first = one(path, settle=0.5)
    golden = Path(first.screenshots["s1"])
    assert first.passed and golden.read_text() == "ready\nhello\ngot hello\n"
    assert one(path, settle=0.5).passed  # same screen: matches
    golden.write_text("ready\nhello\ngot HELLO\n")
    r = one(path, settle=0.5)
    assert kinds(r) == ["golden"]
    f = r.failures[0]
    assert f.position == at(path, "screenshot: s1") and "--update-goldens" in f.message
    assert "-got HELLO\n+got hello" in f.detail
    assert golden.read_text() == "ready\nhello\ngot HELLO\n"  # left as it was
    actual = Path(r.out_dir or "") / "screenshots" / "s1.actual"  # in the run's folder, not beside the golden
    assert Path(r.screenshots["s1"]) == actual and actual.read_text() == "ready\nhello\ngot hello\n"
    assert f"golden {golden} (actual screen: {actual};" in f.message
    assert not list((tmp_path / "goldens").rglob("*.actual"))
    assert r.workspace is not None and Path(r.workspace).is_dir()  # kept on failure
    updated = one(path, update_goldens=True, settle=0.5)
    assert updated.passed and golden.read_text() == "ready\nhello\ngot hello\n"
    assert [(g.status, g.golden) for g in updated.goldens] == [("updated", golden)]


def test_new_goldens_go_next_to_the_scenario_never_into_the_run_directory(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, '  - userInputs: [[0, "bye"]]\n  - screenshot: s\n')
    old = tmp_path / "out/cmd/echo/100x30/screenshots/s.golden"  # where autocue wrote goldens before: ignored
    old.parent.mkdir(parents=True)
    old.write_text("something else\n")
    r = one(path)
    beside = tmp_path / "goldens/cmd/echo/100x30/screenshots/s.golden"
    assert r.passed and [(g.label, g.status, g.golden) for g in r.goldens] == [("s", "new", beside)]
    assert beside.read_text() == "ready\nbye\ngot bye\nend\n" and r.transcript[-1].endswith("s: new")
    assert [p.name for p in (tmp_path / "out").rglob("*.golden")] == ["s.golden"]  # only the old one
    assert not list((tmp_path / "out").rglob("*.actual"))


def test_ci_mode_fails_a_missing_golden_and_writes_none(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, '  - userInputs: [[0, "bye"]]\n  - screenshot: s\n')
    beside = tmp_path / "goldens/cmd/echo/100x30/screenshots/s.golden"
    r = one(path, ci=True)
    assert kinds(r) == ["golden"] and not beside.exists() and not (tmp_path / "goldens").exists()
    f = r.failures[0]
    actual = Path(r.out_dir or "") / "screenshots" / "s.actual"
    assert f.position == at(path, "screenshot: s")
    assert f.message == (f"screenshot 's' has no golden {beside} (CI mode: a missing golden fails; the screen is in "
                         f"{actual}): run the scenario locally with --update-goldens and commit the golden file")
    assert actual.read_text() == "ready\nbye\ngot bye\nend\n" and r.screenshots["s"] == str(actual)
    assert f.detail.startswith(f"--- /dev/null\n+++ {actual}\n") and "+got bye\n" in f.detail
    assert [(g.status, g.actual) for g in r.goldens] == [("missing", actual)]
    updated = one(path, ci=True, update_goldens=True)  # --update-goldens writes it, CI or not
    assert updated.passed and beside.read_text() == "ready\nbye\ngot bye\nend\n"
    assert one(path, ci=True).passed  # and then it is compared


def test_masks_hide_dynamic_text_and_the_workspace_path(tmp_path: Path) -> None:
    prog = 'import os, time\nprint("pid", os.getpid(), "at", time.time())\nprint("cwd", os.getcwd())\n'
    path = scenario(tmp_path, f"""\
name: masked
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": prog})}
masks:
  - 'pid \\d+'
  - {{pattern: 'at [0-9.]+', replace: 'at <time>'}}
timeline:
  - screenshot: s
""")
    r = one(path)
    assert r.passed, r.failures
    assert Path(r.screenshots["s"]).read_text() == "***\u0020at <time>\ncwd <workspace>\n".replace("\u0020at", " at")
    assert one(path).passed  # another pid, another time, another workspace: same golden


def test_assert_kinds_fail_with_position_and_workspace_and_the_timeline_goes_on(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: asserts
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": ECHO_PROG, "data.json": '{"version": 2}'})}
  init: true
timeline:
  - userInputs: [[0, "hello"]]
  - assert:
      fs: {{exists: [prog.py], notExists: [missing.txt]}}
      text: {{contains: ["got hello"]}}
      json: {{file: {{path: data.json, pointer: /version, equals: 2}}}}
      git: {{commit: {{messageContains: initial}}}}
  - assert:
      fs: {{exists: [nope.txt], notExists: [data.json]}}
  - assert:
      text: {{contains: ["never shown"]}}
      json: {{file: {{path: data.json, pointer: /version, equals: 3}}}}
      git: {{commit: {{messageContains: release}}}}
  - userInputs: [[0, "bye"]]
expect: {{exitCode: 0}}
""")
    r = one(path)
    assert kinds(r) == ["assert"] * 5
    positions = [f.position for f in r.failures]
    assert positions == [at(path, "- assert", 1)] * 2 + [at(path, "- assert", 2)] * 3
    assert all(r.workspace and r.workspace in f.message for f in r.failures)
    assert "fs.exists nope.txt" in r.failures[0].message
    assert r.last_screen.endswith("got bye\nend")  # the timeline went on to the end


def test_user_edits_and_user_command(tmp_path: Path) -> None:
    (tmp_path / "patches").mkdir()
    (tmp_path / "patches/fix.patch").write_text(
        "--- a/greeting.txt\n+++ b/greeting.txt\n@@ -1 +1 @@\n-Helo\n+Hello\n")
    path = scenario(tmp_path, f"""\
name: edits
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": ECHO_PROG, "greeting.txt": "Helo"})}
timeline:
  - userEdits: {{patch: patches/fix.patch}}
  - userCommand: {{cmd: "cat greeting.txt > copy.txt; echo listed; ls"}}
  - assert:
      fs: {{exists: [copy.txt]}}
  - userEdits: {{patch: patches/fix.patch}}
  - userInputs: [[0, "bye"]]
""")
    r = one(path)
    assert kinds(r) == ["setup"]  # the second application no longer applies
    assert "does not apply" in r.failures[0].message and r.failures[0].position == at(path, "userEdits", 1)
    ws = Path(r.workspace or "")
    assert (ws / "greeting.txt").read_text() == "Hello\n" and (ws / "copy.txt").read_text() == "Hello\n"
    log = (Path(r.out_dir or "") / "commands.log").read_text()
    assert "$ cat greeting.txt > copy.txt; echo listed; ls  (exit 0)\nlisted\ncopy.txt" in log
    assert any("UserCommand: $ cat" in t for t in r.transcript)


def test_a_user_command_runs_through_the_process_runner(tmp_path: Path) -> None:
    # a background child holding the output open delays the timeline by the runner's bounded drain only
    # (not until it ends); a command that outlives the scenario's deadline is stopped with its whole group
    path = echo_scenario(tmp_path, """\
  - userCommand: {cmd: "sleep 30 & echo $! > bg.pid; echo started"}
  - userCommand: {cmd: "sleep 30 & echo $! > stuck.pid; sleep 30"}
""")
    t0 = time.monotonic()
    r = one(path, timeout=4)
    ws = Path(r.workspace or "")
    background, stuck = (int((ws / f).read_text()) for f in ("bg.pid", "stuck.pid"))
    try:
        assert time.monotonic() - t0 < 15
        assert kinds(r) == ["timeout"] and r.failures[0].position == at(path, "userCommand", 1)
        assert any("UserCommand: $ sleep 30 & echo $! > bg.pid; echo started -> exit 0\nstarted" in t
                   for t in r.transcript)
        assert gone_within(stuck, 2.0), "the command's background child outlived the deadline"
    finally:
        kill_quietly(background)
        kill_quietly(stuck)


def test_advance_ms_is_logical_time_slept_only_with_speed(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, '  - advanceMs: 600\n  - userInputs: [[400, "bye"]]\n')
    fast = one(path)
    slow = one(path, speed=1.0)
    assert fast.passed and slow.passed
    assert slow.duration_s >= 1.0  # 600 + 400 ms of logical time, slept at speed 1
    assert slow.duration_s - fast.duration_s >= 0.5


def test_inputs_for_another_target_are_skipped(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, """\
  - userInputs: [[0, "web only"]]
    target: webui
  - userInputs: [[0, "bye"]]
    target: tui
""")
    r = one(path)
    assert r.passed and "web only" not in r.last_screen
    assert any("skipped 'web only' (target webui)" in t for t in r.transcript)


def test_expect_exit_code_and_artifacts(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, '  - userInputs: [[0, "bye"]]\n', """\
expect:
  exitCode: 3
  artifacts:
    - {type: file, pattern: "*.py"}
    - {type: report, pattern: "reports/*.json"}
    - {pattern: prog.py}
    - {type: any, pattern: "**/prog.py"}
    - {type: taskFile, pattern: prog.py}
    - {type: dir, pattern: "*.py"}
""")
    r = one(path)
    assert kinds(r) == ["exit_code", "artifact", "artifact"]
    assert r.failures[0].message == "the program exited with 0, expected 3"
    ws = r.workspace
    assert r.failures[1].message == (f"expected artifact 'report' matching 'reports/*.json' in the workspace {ws}: "
                                     "none found")
    assert r.failures[2].message == (f"expected artifact 'dir' matching '*.py' in the workspace {ws}: "
                                     "found only prog.py, not a dir")


def test_timeout_kills_the_process_group_and_keeps_the_recording(tmp_path: Path) -> None:
    prog = ("import subprocess, time\nchild = subprocess.Popen(['sleep', '60'])\n"
            "open('child.pid', 'w').write(str(child.pid))\nprint('started', flush=True)\ntime.sleep(60)\n")
    # with expect.exitCode the program must exit by itself (without, the runner ends it: test_timeline_end.py)
    path = scenario(tmp_path, f"name: slow\nah: {{cmd: python3 prog.py}}\n{files_block(**{'prog.py': prog})}"
                              "timeline:\n  - screenshot: s\nexpect: {exitCode: 0}\n")
    t0 = time.monotonic()
    r = one(path, timeout=2)
    assert time.monotonic() - t0 < 8
    assert kinds(r) == ["timeout"] and not r.ended_by_runner
    assert "still running after the timeline's last event, and expect.exitCode says" in r.failures[0].message
    assert "started" in r.last_screen and Path(r.screenshots["s"]).read_text() == "started\n"
    pid = int((Path(r.workspace or "") / "child.pid").read_text())
    time.sleep(0.2)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    _, events = read_cast(Path(r.out_dir or "") / "session.cast")
    assert any(e[1] == "o" and "started" in str(e[2]) for e in events)


def test_a_timeout_inside_the_timeline_names_the_event(tmp_path: Path) -> None:
    prog = "import time\nwhile True:\n    print(time.time(), flush=True)\n    time.sleep(0.01)\n"
    path = scenario(tmp_path, f"name: busy\nah: {{cmd: python3 prog.py}}\n{files_block(**{'prog.py': prog})}"
                              "timeline:\n  - screenshot: never\nexpect: {exitCode: 0}\n")
    r = one(path, timeout=1.5)
    assert kinds(r) == ["timeout"] and r.failures[0].position == at(path, "screenshot: never")
    assert "at Screenshot" in r.failures[0].message and "never" not in r.screenshots
    assert r.exit_code == 143  # SIGTERM; not reported again as an exit_code failure


ALT_SCREEN_TUI = """\
import signal, sys, time
def leave(*_):
    sys.stdout.write("\\x1b[?1049l")  # as opencode does on SIGTERM: back to the (empty) main screen
    sys.stdout.flush()
    sys.exit(0)
signal.signal(signal.SIGTERM, leave)
sys.stdout.write("\\x1b[?1049h\\x1b[2J\\x1b[H> type here (drawn on the alternate screen)")
sys.stdout.flush()
time.sleep(60)
"""


def test_a_timeout_reports_the_screen_as_it_was_before_the_program_was_stopped(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"name: alt\nah: {{cmd: python3 prog.py}}\n{files_block(**{'prog.py': ALT_SCREEN_TUI})}"
                              "timeline:\n  - userInputs: [[0, \"hi\"]]\nexpect: {exitCode: 0}\n")
    r = one(path, timeout=2)
    assert kinds(r) == ["timeout"]
    assert "> type here (drawn on the alternate screen)" in r.failures[0].detail
    assert r.last_screen == r.failures[0].detail  # not the empty main screen the program went back to
    _, events = read_cast(Path(r.out_dir or "") / "session.cast")
    assert events[-1][1] == "o" and "\x1b[?1049l" in str(events[-1][2])  # it did leave the alternate screen


def test_terminal_profile_from_terminal_ref_and_override(tmp_path: Path) -> None:
    (tmp_path / "term.json").write_text(json.dumps({"name": "narrow", "width": 40, "height": 12}))
    prog = "import shutil\nprint(*shutil.get_terminal_size())\n"
    path = scenario(tmp_path, f"name: term\nterminalRef: term.json\nah: {{cmd: python3 prog.py}}\n"
                              f"{files_block(**{'prog.py': prog})}timeline:\n  - screenshot: size\n")
    r = one(path)
    assert r.passed and r.last_screen == "40 12" and r.terminal == "narrow"
    assert "/narrow/screenshots/size.golden" in r.screenshots["size"]
    o = one(path, terminal="60x8")
    assert o.last_screen == "60 8" and "/60x8/screenshots/" in o.screenshots["size"]


@pytest.mark.parametrize(("body", "message"), [
    ("name: noprog\ntimeline: []\n", "names no program to run"),
    ("name: badref\nterminalRef: nope.json\nah: {cmd: 'true'}\ntimeline: []\n", "terminalRef 'nope.json': no such"),
    ("name: nodir\nrepo: {dir: seed}\nah: {cmd: 'true'}\ntimeline: []\n", "repo.dir 'seed': no such folder"),
    ("name: nobin\nah: {cmd: no-such-program-xyz}\ntimeline: []\n", "cannot start 'no-such-program-xyz'"),
    ("name: badagent\nagent: claude-9\ntimeline: []\n", "unknown launch profile"),
    ("name: typo\nagent: claud\ntimeline: []\n", "agent 'claud': unknown launch profile; did you mean 'claude'? "),
])
def test_setup_failures_are_one_clear_line(tmp_path: Path, body: str, message: str) -> None:
    r = one(scenario(tmp_path, body))
    assert kinds(r) == ["setup"] and message in r.failures[0].message, r.failures
    assert "\n" not in r.failures[0].message and r.failures[0].position.startswith(str(tmp_path))


def test_workspace_from_dir_files_init_and_branch(tmp_path: Path) -> None:
    (tmp_path / "seed/sub").mkdir(parents=True)
    (tmp_path / "seed/sub/a.txt").write_text("from dir")
    path = scenario(tmp_path, """\
name: ws
ah: {cmd: "sh -c 'git branch --show-current; git log --format=%s; cat sub/a.txt b.bin | od -c | head -1'"}
repo:
  init: true
  branch: feature/x
  dir: seed
  files:
    - {path: b.bin, contents: {base64: AAEC}}
timeline: []
""")
    r = one(path, keep=True)
    assert r.passed, r.failures
    lines = r.last_screen.splitlines()
    assert lines[:2] == ["feature/x", "initial"]
    assert "f   r   o   m       d   i   r  \\0 001 002" in lines[2]
    assert r.workspace is not None and (Path(r.workspace) / "sub/a.txt").is_file()


def test_the_program_gets_the_server_and_workspace_in_placeholders_and_env(tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
name: env
initialPrompt: the prompt
timeline: []
""")
    r = one(path, cmd="sh -c 'echo {workspace} {prompt}; echo $AUTOCUE_WORKSPACE; echo $TERM $CI'", keep=True)
    assert r.passed, r.failures
    ws = os.path.realpath(r.workspace or "")
    assert r.last_screen.splitlines() == [f"{ws} the prompt", ws, "xterm-256color"]


def test_an_unusable_output_dir_is_a_setup_failure_not_a_crash(tmp_path: Path) -> None:
    path = echo_scenario(tmp_path, '  - userInputs: [[0, "bye"]]\n')
    (tmp_path / "file").write_text("not a directory")
    r = one(path, out=tmp_path / "file")
    assert kinds(r) == ["setup"] and "NotADirectoryError" in r.failures[0].message


def test_repo_files_never_overwrite_an_existing_absolute_path(tmp_path: Path) -> None:
    mine = tmp_path / "precious.txt"
    mine.write_text("mine")
    path = scenario(tmp_path, f"name: abs\nah: {{cmd: 'true'}}\nrepo:\n  files:\n    - {{path: {mine}, contents: x}}\n"
                              "timeline: []\n")
    r = one(path)
    assert kinds(r) == ["setup"] and "does not overwrite files it did not create" in r.failures[0].message
    assert mine.read_text() == "mine"
    (tmp_path / "new.txt").unlink(missing_ok=True)
    path.write_text(path.read_text().replace(str(mine), str(tmp_path / "new.txt")))
    assert one(path).passed and (tmp_path / "new.txt").read_text() == "x"


def test_a_masked_ticking_clock_lets_the_screen_settle(tmp_path: Path) -> None:
    # the same program as above: it redraws a clock every 10 ms; a mask hides the ticking, and
    # the quiet window is measured on the masked screen text, so the screenshot is taken
    prog = ("import sys, time\nprint('clock', flush=True)\nwhile True:\n"
            "    sys.stdout.write('\\r' + str(time.time())); sys.stdout.flush()\n    time.sleep(0.01)\n")
    path = scenario(tmp_path, f"name: clock\nah: {{cmd: python3 prog.py}}\n{files_block(**{'prog.py': prog})}"
                              "masks: ['[0-9]+[.][0-9]+']\ntimeline:\n  - screenshot: ticking\n")
    r = one(path, timeout=30)
    assert r.screenshots["ticking"] and Path(r.screenshots["ticking"]).read_text() == "clock\n***\n"
    # it never exits (nor reads its Ctrl-D): the runner ends it after the timeline, and the run passes
    assert r.passed and r.ended_by_runner == "SIGTERM", r.failures


LATE_PROG = """\
import sys, time
print("ready", flush=True)
sys.stdin.readline()
print("working", flush=True)
time.sleep(0.4)
print("done", flush=True)
sys.stdin.readline()
"""


def test_a_slow_program_is_looked_at_again_before_a_golden_or_an_assert_fails(tmp_path: Path) -> None:
    # the program is quiet (asleep) for 0.4 s mid-answer: longer than the quiet window, so the
    # executor first sees "working"; the screenshot and the assert must wait for "done"
    path = scenario(tmp_path, f"""\
name: late
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": LATE_PROG})}
timeline:
  - userInputs: [[0, "go"]]
  - screenshot: late
  - assert:
      text:
        contains: ["done"]
  - userInputs: [[0, "end"]]
expect: {{exitCode: 0}}
""")
    golden = tmp_path / "goldens" / "cmd" / "late" / "100x30" / "screenshots" / "late.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("ready\ngo\nworking\ndone\n")
    r = one(path)
    assert r.passed, r.failures
    assert r.screenshots["late"] == str(golden)


def test_a_screenshot_that_never_matches_still_fails_after_the_wait(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: never
ah: {{cmd: python3 prog.py}}
{files_block(**{"prog.py": LATE_PROG})}
timeline:
  - userInputs: [[0, "go"]]
  - screenshot: late
  - userInputs: [[0, "end"]]
""")
    golden = tmp_path / "goldens" / "cmd" / "never" / "100x30" / "screenshots" / "late.golden"
    golden.parent.mkdir(parents=True)
    golden.write_text("ready\ngo\nsomething else\n")
    r = one(path)
    assert kinds(r) == ["golden"]
    assert (Path(r.out_dir or "") / "screenshots/late.actual").read_text() == "ready\ngo\nworking\ndone\n"
