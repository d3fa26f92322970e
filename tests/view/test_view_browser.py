"""The viewer in a real Chromium: what a person sees and can do on each kind of input, and a live stream."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from conformance import PI_SESSIONS, RALPH
from doc_blocks import ROOT
from view_helpers import branched_session, run_dir

from autocue.scenario import load_scenario_text
from autocue.simulate import SimulationServer
from autocue.view import write_view
from autocue.view.synthetic import write_big_session

pytestmark = pytest.mark.slow  # a real Chromium per test


def open_view(page: Any, source: str | Path, out: Path) -> Any:
    write_view(str(source), out)
    page.goto(out.resolve().as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return page


def test_session_tool_call_expands_search_finds_and_errors_jump(page: Any, tmp_path: Path) -> None:
    open_view(page, PI_SESSIONS / "anthropic-edit-error.jsonl", tmp_path / "s.html")
    assert page.inner_text("#title") == "anthropic-edit-error.jsonl"
    assert "tool calls 3" in page.inner_text("#summary")
    read = page.locator(".row.tool", has_text="missing.txt").first
    assert not read.locator(".body").is_visible()
    read.locator(".head").click()
    assert read.locator(".body").is_visible()
    assert "ENOENT: no such file or directory" in read.locator(".body").inner_text()
    edit = page.locator(".row.tool", has_text="edit").first
    edit.locator(".head").click()
    assert edit.locator(".diff .add").inner_text() == "+1 Hello, world!"
    page.shot("session-expanded")

    page.keyboard.press("/")
    page.keyboard.type("does not exist")
    page.keyboard.press("Enter")
    page.wait_for_selector("#count:has-text('1 / 1 matches')")
    assert page.locator(".row.hit mark").first.inner_text().lower() == "does not exist"
    page.shot("session-search")

    page.locator("#q").press("Escape")
    page.keyboard.press("g")
    page.keyboard.press("e")
    focused = page.locator(".row.focus")
    assert "error" in (focused.get_attribute("class") or "") and "missing.txt" in focused.inner_text()
    page.keyboard.press("e")
    assert "no_such_tool" in page.locator(".row.focus").inner_text()
    page.keyboard.press("j")
    assert page.locator(".row.focus").get_attribute("data-type") == "assistant"
    page.keyboard.press("k")
    assert "no_such_tool" in page.locator(".row.focus").inner_text()


def test_session_tree_shows_branches_labels_and_compaction(page: Any, tmp_path: Path) -> None:
    path, _ = branched_session(tmp_path)
    open_view(page, path, tmp_path / "b.html")
    off = page.locator(".row.offbranch")
    assert off.count() == 1 and "first attempt" in off.inner_text() and "branch 1" in off.inner_text()
    labelled = page.locator(".row", has_text="second attempt")
    assert "label: good answer" in labelled.inner_text()
    assert page.locator("#outline a", has_text="good answer").count() >= 1
    assert page.locator("#outline a", has_text="branch 1").count() == 1
    page.locator(".row.compaction .head").click()
    assert "Earlier: the user asked to fix calc.py" in page.locator(".row.compaction .body").inner_text()
    assert "1234 tokens before" in page.locator(".row.compaction").inner_text()
    page.shot("session-tree")


def test_loop_recording_shows_iterations_and_replays_the_terminal(page: Any, tmp_path: Path) -> None:
    open_view(page, RALPH / "cassettes_e2e_multi-iter.jsonl", tmp_path / "loop.html")
    assert page.locator(".row.iteration").count() == 3
    assert "hat default" in page.locator(".row.iteration").first.inner_text()
    screen = page.locator("#terminal pre.term")
    assert screen.inner_text().endswith("Iteration 3: Task completed!\nLOOP_COMPLETE")
    page.locator("#terminal input[type=range]").fill("0")
    assert screen.inner_text() == ""
    page.locator("#terminal input[type=range]").fill("100")  # 0.07 of 0.7 s: the first write only
    assert screen.inner_text() == "Iteration 1: Starting the multi-step task."
    page.locator("#terminal button").click()  # replay: 0.65 s of output
    page.wait_for_selector("#terminal pre.term:has-text('LOOP_COMPLETE')", timeout=5000)
    assert "loop ended: CompletionPromise after 3 iterations" in page.locator(".row.loop").inner_text()
    page.shot("loop")


def test_run_directory_shows_screens_golden_diffs_and_plays_the_cast(page: Any, tmp_path: Path) -> None:
    open_view(page, run_dir(tmp_path), tmp_path / "run.html")
    bad = page.locator(".row.screen.error")
    assert bad.count() == 1 and "differs from golden" in bad.inner_text()
    assert bad.locator(".body").is_visible()  # a failing screen is open from the start
    assert bad.locator(".actual .term .bad").inner_text() == "exit 1"
    assert bad.locator(".golden .term .bad").inner_text() == "exit 0"
    assert "matches golden" in page.locator(".row.screen:not(.error)").inner_text()
    assert "screenshot 'final' differs from its golden" in page.locator(".row.failure").inner_text()
    cast = page.locator(".row.cast")
    cast.locator(".head").click()
    player = cast.locator(".player pre.term")
    assert player.inner_text() == "$ npm test\nPASS src/App.test.js\nFAIL src/utils.test.js"
    cast.locator("input[type=range]").fill("300")  # 0.27 s: only the first frame
    assert player.inner_text() == "$ npm test"
    assert page.locator("#outline a.error", has_text="FAILED").count() == 1
    page.shot("run")


TODO_PROG = """\
items = []
print("todo: add TEXT, list, quit")
while True:
    cmd, _, arg = input("> ").partition(" ")
    if cmd == "add":
        items.insert(0, arg)  # the bug: the newest item first
        print(f"added {arg}")
    elif cmd == "list":
        for n, item in enumerate(items, 1):
            print(f"{n}. {item}")
    elif cmd == "quit":
        break
"""
TODO_SCENARIO = """\
name: todo_list
timeline:
  - userInputs: [[0, "add buy milk"], [0, "add call Ada"], [0, "list"]]
  - screenshot: listed
  - assert:
      text: {contains: ["1. buy milk"]}
  - userInputs: [[0, "quit"]]
expect: {exitCode: 0}
"""
TODO_GOLDEN = """\
todo: add TEXT, list, quit
> add buy milk
added buy milk
> add call Ada
added call Ada
> list
1. buy milk
2. call Ada
>
"""


def test_a_real_failing_run_shows_golden_and_actual_side_by_side_with_the_diff(page: Any, tmp_path: Path) -> None:
    """`autocue run --out runs` of a --cmd scenario whose committed golden differs, then `autocue view runs`
    from another folder. With AUTOCUE_DOC_IMAGES=1 the page's picture is written to docs/img/view-run.png."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "todo.py").write_text(TODO_PROG)
    (project / "todo.yaml").write_text(TODO_SCENARIO)
    golden = project / "goldens/cmd/todo_list/100x30/screenshots/listed.golden"  # committed with the scenario
    golden.parent.mkdir(parents=True)
    golden.write_text(TODO_GOLDEN)
    autocue = [sys.executable, "-m", "autocue.cli.main"]
    run = subprocess.run([*autocue, "run", "todo.yaml", "--cmd", "python3 {scenario_dir}/todo.py", "--out", "runs"],
                         cwd=project, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "FAIL todo_list" in run.stdout, run.stdout + run.stderr
    [actual] = (project / "runs").rglob("listed.actual")  # in the run's folder, the golden untouched
    assert golden.read_text() == TODO_GOLDEN and not list(project.glob("goldens/**/*.actual"))
    view = subprocess.run([*autocue, "view", "project/runs"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert view.returncode == 0, view.stderr
    page.goto((project / "runs" / "view.html").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator(".warn").count() == 0  # todo.yaml was found from where the run started

    bad = page.locator(".row.screen.error")
    assert bad.count() == 1 and "differs from golden" in bad.locator(".head").inner_text()
    assert bad.locator(".body").is_visible()  # open from the start
    # the golden next to the scenario, the actual screen in the run's folder (shown from where the run started)
    assert bad.locator(".golden .path").inner_text() == "goldens/cmd/todo_list/100x30/screenshots/listed.golden"
    assert bad.locator(".actual .path").inner_text() == str(actual.relative_to(project))
    assert bad.locator(".golden pre.term").inner_text().splitlines() == TODO_GOLDEN.splitlines()
    assert bad.locator(".actual pre.term").inner_text().splitlines() == actual.read_text().splitlines()
    assert bad.locator(".golden .bad").all_inner_texts() == ["1. buy milk", "2. call Ada"]
    assert bad.locator(".actual .bad").all_inner_texts() == ["1. call Ada", "2. buy milk"]
    assert bad.locator(".diff .del").all_inner_texts() == ["-1. buy milk", "-2. call Ada"]
    assert bad.locator(".diff .add").all_inner_texts() == ["+1. call Ada", "+2. buy milk"]
    page.evaluate("el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 150)",
                  bad.element_handle())  # the row's head below the sticky header
    picture = page.shot("view-run")
    if os.environ.get("AUTOCUE_DOC_IMAGES") == "1":
        shutil.copy(picture, ROOT / "docs" / "img" / "view-run.png")

    # the timeline (the scenario's events and what the runner did) and the failures with their positions
    assert page.locator(".row.user").count() == 4
    assert "todo.yaml:4:5 Screenshot: listed: differs" in page.locator(".row.info").all_inner_texts()[-3]
    failures = page.locator(".row.failure").all_inner_texts()
    assert len(failures) == 2 and "todo.yaml:4:5" in failures[0] and "todo.yaml:5:5" in failures[1]
    assert "text.contains '1. buy milk'" in failures[1]
    cast = page.locator(".row.cast")
    cast.locator(".head").click()
    assert "todo: add TEXT, list, quit" in cast.locator(".player pre.term").inner_text()
    assert page.locator("#outline a.error", has_text="FAILED").count() == 1


def test_print_style_hides_controls_and_opens_every_row(page: Any, tmp_path: Path) -> None:
    open_view(page, PI_SESSIONS / "anthropic-tools.jsonl", tmp_path / "p.html")
    page.emulate_media(media="print")
    assert not page.locator(".toolbar").is_visible()
    assert not page.locator("#outline").is_visible()
    bodies = page.locator(".row.tool .body")
    assert bodies.count() == 3 and all(bodies.nth(i).is_visible() for i in range(3))
    page.pdf(path=str(tmp_path / "print.pdf"))
    assert (tmp_path / "print.pdf").stat().st_size > 1000


@pytest.mark.slow
def test_100k_entry_session_stays_usable(page: Any, tmp_path: Path) -> None:
    big = write_big_session(tmp_path / "big.jsonl", 100_000)
    t0 = time.monotonic()
    open_view(page, big, tmp_path / "big.html")
    loaded = time.monotonic() - t0
    assert page.locator(".row").count() <= 200  # rendered lazily
    page.keyboard.press("/")
    page.keyboard.type("step 77776:")
    page.keyboard.press("Enter")
    # the search runs as the query is typed: wait for the whole query's count, not a prefix's
    page.wait_for_function("document.querySelector('#count').innerText.trim() === '1 / 1 matches'")
    assert "please look at module_77776.py" in page.locator(".row.hit").inner_text()
    page.locator("#q").press("Escape")
    page.keyboard.press("G")
    assert "end of stream" in page.locator(".row.focus").inner_text()
    page.keyboard.press("g")
    page.keyboard.press("e")
    assert "ENOENT module_1.py" in page.locator(".row.focus").inner_text()
    for _ in range(5):
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(100)
    assert page.locator(".row").count() <= 1600
    page.shot("big")
    print(f"100k-entry session: written and loaded in {loaded:.2f} s")


LIVE = """
name: live_demo
initialPrompt: Stream slowly
timeline:
  - think: [[80, 'thinking about it']]
  - agentToolUse:
      toolName: runCmd
      toolCallId: call_1
      args: {cmd: make}
      result: built
      toolExecution:
        startTimeMs: 0
        events:
          - {type: stdout, timeMs: 100, content: "step 1\\n"}
          - {type: stdout, timeMs: 300, content: "step 2\\n"}
          - {type: completion, timeMs: 400, exitCode: 0}
  - assistant: [[150, first], [150, second], [700, third], [700, fourth]]
  - agentEdits: {path: main.py, linesAdded: 2, linesRemoved: 0}
  - complete: true
"""


def test_live_view_receives_events_in_order_and_resumes_after_reconnect(page: Any, tmp_path: Path) -> None:
    with SimulationServer([load_scenario_text(LIVE)], speed=1.0) as server:
        sid = httpx2.post(server.url + "/api/v1/sessions", json={"scenario": "live_demo"}).json()["id"]
        open_view(page, f"{server.url}/api/v1/sessions/{sid}", tmp_path / "live.html")
        page.wait_for_selector(".row[data-type='tool.start']")
        assert page.locator("#live").is_visible()
        server.drop_clients()  # the network drops: EventSource reconnects with Last-Event-ID
        page.wait_for_selector(".row:has-text('second')", timeout=5000)
        server.drop_clients()
        page.wait_for_selector("body[data-live='ended']", timeout=10_000)
        total = len(server.state.sessions[sid].events)
        sent = server.state.sessions[sid].sent
    ids = [int(x) for x in page.eval_on_selector_all(".row", "els => els.map(e => e.dataset.id)")]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    seen = page.evaluate("autocueView.events.map(e => e.id)")
    assert seen == list(range(1, total + 1))  # every event once, in order, across three connections
    assert int(page.evaluate("document.body.dataset.connections")) >= 2
    assert sent == total  # each reconnect asked for what followed its Last-Event-ID: nothing was sent twice
    tool = page.locator(".row.tool")
    assert "built" in tool.inner_text() or "ok" in tool.inner_text()
    tool.locator(".head").click()
    assert "step 1\nstep 2" in tool.locator("pre.stdout").inner_text()
    texts = page.eval_on_selector_all(".row.assistant .c", "els => els.map(e => e.textContent)")
    assert texts == ["first", "second", "third", "fourth"]
    assert "live · ended" in page.inner_text("#live")
    page.shot("live")
