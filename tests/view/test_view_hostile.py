"""The viewer on hostile input (issue 27): URLs that try to inject script, files it must not read or
wait on, and text that took a browser seconds to lay out. docs/security.md, "The viewer"."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from view_helpers import CAST, page_data, run_dir

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from autocue.scenario import load_scenario_text
from autocue.session.manager import SessionManager
from autocue.simulate import SimulationServer
from autocue.view import ViewDoc, ViewSourceError, load_doc, render_html, write_view
from autocue.view import sources as view_sources

PWN = "window.__pwned=(window.__pwned||0)+1"
PAYLOADS = [f"</script><script>{PWN}</script>", f'<img src=x onerror="{PWN}">', f"\"'><svg onload={PWN}>",
            f"</title><script>{PWN}</script>", f"<!--<script>{PWN}</script>", f"\u2028</script><script>{PWN}</script>"]
HOSTILE_URLS = [
    'http://u"><svg onload={PWN}>:p@127.0.0.1:{port}/api/v1/sessions/{sid}',
    'http://"><img src=x onerror={PWN}>@127.0.0.1:{port}/api/v1/sessions/{sid}',
    "http://127.0.0.1:{port}/api/v1/sessions/{sid}?x=\"><script>{PWN}</script>",
    'http://a"><script>{PWN}</script>/api/v1/sessions/{sid}',
]


def view(*args: str, cwd: Path | None = None, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "autocue.cli.main", "view", *args], capture_output=True, text=True,
                       timeout=timeout, cwd=cwd)
    return r, time.monotonic() - t0


# ---------------------------------------------------------------------------- no script from a URL


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_live_url_is_refused_in_one_line(url: str, tmp_path: Path) -> None:
    hostile = url.format(PWN=PWN, port=9, sid="s1")
    out = tmp_path / "live.html"
    r, _ = view(hostile, "-o", str(out))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and ": refused: " in r.stderr, r.stderr
    assert "http://HOST:PORT/api/v1/sessions/ID" in r.stderr
    assert not out.exists()
    with pytest.raises(ViewSourceError, match="refused"):  # a ViewDoc made in Python cannot carry it either
        render_html(ViewDoc("live", "t", live_url=hostile))


def test_live_page_csp_names_the_origin_only() -> None:
    page = render_html(ViewDoc("live", "t", live_url="http://127.0.0.1:8123/api/v1/sessions/s1/events"))
    assert "connect-src http://127.0.0.1:8123\">" in page
    page6 = render_html(ViewDoc("live", "t", live_url="http://[::1]:8123/api/v1/sessions/s1/events"))
    assert "connect-src http://[::1]:8123\">" in page6


# ---------------------------------------------------------------------------- only what it was given


def test_fifo_as_the_input_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "s.jsonl"
    os.mkfifo(fifo)
    r, took = view(str(fifo), "-o", str(tmp_path / "s.html"), timeout=20)
    assert r.returncode == 1 and took < 10 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"autocue view: {fifo}") and "FIFO" in r.stderr  # what, where
    assert len(r.stderr.strip().splitlines()) == 1


def test_fifo_as_report_json_is_refused_at_once(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "report.json")
    r, took = view(str(run), timeout=20)
    assert r.returncode == 1 and took < 10 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"autocue view: {run / 'report.json'}: not read: it is a FIFO; give the --out " \
                               "folder of a run"


SECRET = "SECRET-OUTSIDE-THE-RUN"


def hostile_run(tmp_path: Path) -> Path:
    """``run_dir`` with every way a report.json or an agent could make the page read what it was not given."""
    run = run_dir(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("secret.cast", "secret.actual", "secret.golden", "passwd"):
        (outside / name).write_text(SECRET + "\n")
    report = json.loads((run / "report.json").read_text())
    npm, broken = report["scenarios"]
    npm_out = Path(npm["out_dir"])
    os.mkfifo(npm_out / "fifo.cast")  # a FIFO where a recording goes
    for i in range(50):  # 50 recordings that are /dev/zero
        (npm_out / f"zero{i:02}.cast").symlink_to("/dev/zero")
    (npm_out / "leak.cast").symlink_to(outside / "secret.cast")
    with (npm_out / "big.cast").open("wb") as f:  # sparse: larger than a file may be, costs no disk
        f.truncate(view_sources.FILE_CAP + 1)
    actual = Path(broken["goldens"][0]["actual"])  # the differing screen: now a link out of the run
    actual.unlink()
    actual.symlink_to(outside / "secret.actual")
    goldens = Path(npm["goldens"][0]["golden"]).parent  # beside the scenario: links and FIFOs there are refused
    (goldens / "linked.golden").symlink_to(outside / "secret.golden")
    os.mkfifo(goldens / "fifo.golden")
    npm["goldens"] += [{"label": "linked", "status": "match", "golden": str(goldens / "linked.golden")},
                       {"label": "fifo", "status": "match", "golden": str(goldens / "fifo.golden")},
                       {"label": "etc", "status": "match", "golden": str(outside / "passwd")},
                       {"label": "abs", "status": "match", "golden": str(outside / "secret.golden")}]
    report["scenarios"] += [
        {"name": "up", "file": "npm_test.yaml", "passed": True, "out_dir": "../outside", "failures": [],
         "goldens": [{"label": "x", "status": "differs", "golden": str(outside / "secret.golden"),
                      "actual": "../outside/secret.actual"}]},
        {"name": "abs", "file": "npm_test.yaml", "passed": True, "out_dir": str(outside), "failures": []},
    ]
    (run / "report.json").write_text(json.dumps(report))
    return run


@pytest.mark.slow
def test_run_page_reads_only_regular_files_of_the_run_and_says_what_it_skipped(tmp_path: Path) -> None:
    run = hostile_run(tmp_path)
    r, took = view(str(run), timeout=60)
    assert r.returncode == 0, r.stderr
    assert took < 15  # before: blocked on the FIFO until the timeout
    html = (run / "view.html").read_text()
    assert SECRET not in html and len(html) < 2_000_000  # nothing from outside, no /dev/zero
    data = page_data(html)
    warnings = data["warnings"]
    npm_out = run / "cmd/npm_test/100x30/20261124-101500-4242-a"
    said = "\n".join(warnings)
    assert f"npm_test: recording {npm_out / 'fifo.cast'} skipped: it is a FIFO" in warnings
    assert f"npm_test: recording {npm_out / 'leak.cast'} skipped: it is a symbolic link" in warnings
    assert sum(f"zero{i:02}.cast skipped: it is a symbolic link" in said for i in range(50)) == 50
    assert f"npm_test: recording {npm_out / 'big.cast'} skipped: it is {view_sources.FILE_CAP + 1} bytes, over " \
           f"the limit of {view_sources.FILE_CAP} bytes" in warnings
    assert "linked.golden skipped: it is a symbolic link" in said and "fifo.golden skipped: it is a FIFO" in said
    assert f"npm_test: golden {tmp_path / 'outside/passwd'} skipped: a golden's name ends in .golden" in warnings
    assert f"npm_test: golden {tmp_path / 'outside/secret.golden'} skipped: it is outside " in said
    assert "final.actual skipped: it is a symbolic link" in said
    assert f"up: recordings in {run / '../outside'} skipped: it is outside the run directory {run}" in warnings
    assert f"abs: recordings in {tmp_path / 'outside'} skipped: it is outside the run directory {run}" in warnings
    # what the run made is still shown: its recording, the golden beside the scenario
    casts = [e for e in data["events"] if e["type"] == "cast"]
    assert [(e["scenario"], e["name"]) for e in casts] == [("npm_test", "session.cast")] and casts[0]["cast"] == CAST
    screens = {(e["scenario"], e["label"]): e for e in data["events"] if e["type"] == "screen"}
    assert screens[("npm_test", "after_edits")]["golden"] == "$ npm test\nPASS\n"
    assert screens[("broken", "final")]["actual"] == "all green\nexit 0\n"  # only its golden is left to show


def test_files_of_a_page_have_a_cap_in_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = run_dir(tmp_path)
    out = run / "cmd/npm_test/100x30/20261124-101500-4242-a"
    (out / "second.cast").write_text(CAST)
    budget = len("$ npm test\nPASS\n") + len(CAST) + len(CAST) // 2  # the golden and one recording fit
    monkeypatch.setattr(view_sources, "PAGE_CAP", budget)
    doc = load_doc(str(run))
    assert [e["name"] for e in doc.events if e["type"] == "cast"] == ["second.cast"]
    assert f"npm_test: recording {out / 'session.cast'} skipped: it is {len(CAST)} bytes, over the limit of " \
           f"{len(CAST) // 2} bytes left for this page's files" in doc.warnings


# ---------------------------------------------------------------------------- browser: no script, fast text


def hostile_session(folder: Path, n: int, others: int) -> Path:
    """A session whose every text path carries script payloads and a run without a break: ``n`` characters
    in the reply, ``others`` in the session's name, the prompt, the thinking, the tool call's arguments, its
    result and diff."""
    long_a = "A" * n  # a repeated glyph: the slowest text for a browser to lay out without a break
    long_b64 = base64.b64encode(os.urandom(others * 3 // 4 + 3)).decode()[:others]  # a blob, as replies carry
    sm = SessionManager.create(folder, folder)
    sm.append_message(UserMessage(" ".join(PAYLOADS) + long_b64))
    sm.append_session_info(" ".join(PAYLOADS) + long_b64)  # the page's title
    sm.append_message(AssistantMessage([ThinkingContent(" ".join(PAYLOADS) + long_b64),
                                        TextContent(long_a + " ".join(PAYLOADS)),
                                        ToolCall("call_1", PAYLOADS[1], {"cmd": PAYLOADS[0] + long_b64})],
                                       provider=PAYLOADS[2], model=PAYLOADS[0], stop_reason="toolUse"))
    sm.append_message(ToolResultMessage("call_1", PAYLOADS[1], [TextContent(long_b64 + " ".join(PAYLOADS))],
                                        details={"diff": "+" + " ".join(PAYLOADS) + long_b64}, is_error=True))
    path = sm.get_session_file()
    assert path is not None
    sm.append_label_change(sm.get_leaf_id() or "", PAYLOADS[3])
    return Path(path)


def open_timed(page: Any, out: Path) -> float:
    t0 = time.monotonic()
    page.goto(out.resolve().as_uri(), wait_until="commit", timeout=20_000)
    page.wait_for_selector(".row.assistant", state="visible", timeout=20_000)
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # painted
    return time.monotonic() - t0


def no_script_ran(page: Any, dialogs: list[str]) -> None:
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned === undefined") and not dialogs


@pytest.mark.slow
def test_no_script_runs_from_hostile_urls_or_data(page: Any, tmp_path: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    scenario = load_scenario_text(f"name: demo\ninitialPrompt: {json.dumps(PAYLOADS[0])}\ntimeline:\n"
                                  f"  - assistant: [[10, {json.dumps(PAYLOADS[1])}]]\n  - complete: true\n")
    with SimulationServer([scenario], speed=50.0) as server:
        port = server.url.rsplit(":", 1)[1]
        sid = httpx2.post(server.url + "/api/v1/sessions", json={"scenario": "demo"}).json()["id"]
        for n, url in enumerate(HOSTILE_URLS):
            hostile = url.format(PWN=PWN, port=port, sid=sid)
            try:
                write_view(hostile, tmp_path / f"url{n}.html")
            except ViewSourceError:
                continue  # refused: no page
            page.goto((tmp_path / f"url{n}.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            no_script_ran(page, dialogs)
        write_view(f"{server.url}/api/v1/sessions/{sid}", tmp_path / "live.html")  # the data it streams
        page.goto((tmp_path / "live.html").as_uri())
        page.wait_for_selector("body[data-live='ended']", timeout=10_000)
        assert page.locator(".row.assistant .c").inner_text() == PAYLOADS[1]
        no_script_ran(page, dialogs)
    write_view(hostile_session(tmp_path, 300, 300), tmp_path / "data.html")
    page.goto((tmp_path / "data.html").as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.keyboard.press("x")  # every row open
    page.fill("#q", "onerror")
    page.keyboard.press("Enter")  # search highlights inside the payloads
    assert page.locator("mark").count() > 0
    no_script_ran(page, dialogs)
    assert PAYLOADS[1] in page.locator(".row.assistant").inner_text()


@pytest.mark.slow
def test_3mb_unbroken_text_shows_first_rows_fast_and_stays_reachable(page: Any, tmp_path: Path) -> None:
    n = 3_000_000
    out = write_view(hostile_session(tmp_path, n, 300_000), tmp_path / "long.html")
    (tmp_path / "warm").mkdir()
    open_timed(page, write_view(hostile_session(tmp_path / "warm", 10, 10), tmp_path / "warm.html"))
    took = open_timed(page, out)  # the second page of the tab: the time of the page, not of the renderer's start
    print(f"3 MB unbroken reply: first rows after {took:.2f} s")
    assert took < 2.0, f"first rows after {took:.2f} s"  # before: no rows after 20 s
    assistant = page.locator(".row.assistant")
    shown = assistant.evaluate("el => el.querySelector('.c').textContent.length")
    assert 10_000 <= shown < 20_000  # its first 10,000 characters, then the button
    page.keyboard.press("x")  # unfold every row: each long text shows its start
    page.evaluate("document.body.offsetHeight")
    assert page.locator(".row.tool .showall").count() >= 2 and page.locator(".row.user .showall").count() == 1
    result = page.locator(".row.tool pre:not(.diff)").nth(1)  # the tool's result: its start, then the rest
    assert result.evaluate("el => el.textContent.length") < 20_000
    page.locator(".row.tool .showall").first.click()
    result = page.locator(".row.tool pre:not(.diff)").nth(1)
    assert result.evaluate("el => el.textContent") == page.evaluate(
        "autocueView.rows.find(r => r.ev.type === 'tool.start').kids.find(k => k.type === 'tool.end').result")
    assistant.locator(".showall").click()  # the whole text, on demand
    full = assistant.evaluate("el => el.querySelector('.c').textContent")
    assert full.startswith("A" * n) and len(full) >= n and not assistant.locator(".showall").count()
    # search reads the whole text, as the page's data keeps it
    assert page.evaluate("autocueView.rows.filter(r => r.ev.type === 'assistant')[0].ev.text.length") > n


# ---------------------------------------------------------------------------- probes (more with --fuzz-long)

URL_PARTS = st.sampled_from(['"', "'", "<", ">", "@", ":", "/", "?", "#", "[", "]", "%22", " ", "\\", "\n", "a", "1",
                             "127.0.0.1", "localhost", "[::1]", ":8080", "<script>", "javascript:", "http://", "//"])


@given(st.sampled_from(["http://", "https://", "HTTP://", "http:/", "ftp://", ""]),
       st.lists(URL_PARTS, max_size=12).map("".join))
def test_probe_live_origin_is_an_origin_or_refused(scheme: str, rest: str) -> None:
    url = scheme + rest
    try:
        origin = view_sources.live_origin(url)
    except ViewSourceError as e:
        assert "\n" not in str(e).rstrip("\n") or "\n" in url  # one line (the URL itself is shown with repr)
        return
    assert re.fullmatch(r"https?://(\[[0-9a-f:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?", origin), origin


TEXT_PARTS = st.sampled_from(["<", ">", "/", "'", '"', "&", "!", "-", "\u2028", "script", "</script>", "<!--", "a",
                              " ", "</SCRIPT >", "<img src=x onerror=", "\u0000"])


@given(st.lists(st.lists(TEXT_PARTS, max_size=40).map("".join), min_size=1, max_size=6))
def test_probe_hostile_text_stays_in_the_data_block(texts: list[str]) -> None:
    doc = ViewDoc("session", texts[0], [{"v": 1, "id": n + 1, "t": 0, "type": "user", "text": t}
                                       for n, t in enumerate(texts)], {"cwd": texts[-1]}, list(texts))
    page = render_html(doc)
    head, _, rest = page.partition('<script type="application/json" id="autocue-data">')
    data, _, tail = rest.partition("</script>")
    assert "<" not in data and page_data(page)["events"] == doc.events  # the data ends only where it should
    assert head.count("<script") == 0 and tail.count("<script") == 1  # the viewer's own script, nothing else


def hostile_events(texts: list[str]) -> list[dict[str, Any]]:
    """Every text path of the viewer carrying one of ``texts``: user, thinking, assistant, a tool's name,
    arguments, output, result and diff, a file change, a marker, a note, a summary, a terminal chunk, a
    screen with its golden and diff, a failure."""
    def t(n: int) -> str:
        return texts[n % len(texts)]

    kinds: list[dict[str, Any]] = [
        {"type": "user", "text": t(0)}, {"type": "thinking", "text": t(1)},
        {"type": "assistant", "text": t(2), "model": t(3)},
        {"type": "tool.start", "toolCallId": "c1", "toolName": t(4), "args": {t(5): t(6)}},
        {"type": "tool.output", "toolCallId": "c1", "stream": "stdout", "content": t(7)},
        {"type": "tool.end", "toolCallId": "c1", "toolName": t(4), "status": t(8), "result": t(9), "diff": t(10)},
        {"type": "file.change", "path": t(11), "linesAdded": 1, "linesRemoved": 0, "diff": t(12)},
        {"type": "marker", "kind": t(13), "label": t(14)}, {"type": "info", "text": t(15), "kind": t(16)},
        {"type": "summary", "summary": t(17)}, {"type": "terminal", "content": t(18)},
        {"type": "screen", "label": t(19), "actual": t(20), "golden": t(21), "status": "differs", "diff": t(22)},
        {"type": "failure", "kind": t(23), "message": t(24), "position": t(25), "diff": t(26)},
    ]
    return [{"v": 1, "id": n + 1, "t": n, **ev} for n, ev in enumerate(kinds)]


BROWSER_PARTS = [*PAYLOADS, "<", ">", "/", "'", '"', "&", "`", "${", "\u2028", "</script>", "<!--", "-->",
                 "<img src=x onerror=", PWN, "javascript:", "<a href=", "</textarea>", "<style>", "a", " "]
BROWSER_TEXT = st.lists(st.sampled_from(BROWSER_PARTS), max_size=12).map("".join)


@pytest.mark.slow
@settings(max_examples=max(10, settings().max_examples // 6))  # a page a browser load: a sixth of the profile's
@given(st.lists(BROWSER_TEXT, min_size=1, max_size=27))
def test_probe_hostile_text_runs_no_script_in_a_browser(page: Any, tmp_path: Path, texts: list[str]) -> None:
    """A page of every text path carrying generated hostile text, opened in Chromium with every row
    open: no script of the data ran (more pages with --fuzz-long)."""
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    out = tmp_path / "probe.html"
    out.write_text(render_html(ViewDoc("session", texts[0], hostile_events(texts), {"cwd": texts[-1]},
                                       list(texts))), encoding="utf-8")
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    page.keyboard.press("x")  # every row open: their bodies are drawn too
    no_script_ran(page, dialogs)
