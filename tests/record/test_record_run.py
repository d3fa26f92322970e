"""``autocue record --cmd``: a whole run of a small real agent (tests/fixtures/record_run/agent.py, the
official openai SDK, real files, a real ``bash``) recorded behind the proxy from an ``autocue serve``
upstream, then replayed by ``autocue run``: green with the same agent, red at the first turn a
changed agent (one that writes its files elsewhere from turn N on) differs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autocue.mockllm import serve
from autocue.record.run_capture import CaptureOptions, record_run
from autocue.scenario import load_scenario

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "record_run"
AGENT = f"{{python}} {FIXTURES / 'agent.py'}"
PROMPT = "create hello.txt and count its lines"


def autocue(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue.cli.main", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def _changed(path: Path, from_turn: int) -> Path:
    """The recording with its program swapped for the changed agent."""
    out = path.with_name(f"changed-{from_turn}.yaml")
    out.write_text(path.read_text(encoding="utf-8").replace("agent.py", f"agent.py --elsewhere-from {from_turn}", 1),
                   encoding="utf-8")
    return out


def test_print_mode_run_is_recorded_with_its_shell_commands_and_workspace_and_replays(tmp_path: Path) -> None:
    with serve(FIXTURES / "upstream.yaml") as up:
        r = autocue("record", "--upstream", up.base_url, "--cmd", f"{AGENT} {{prompt}}", "--out", "run.yaml", "--",
                    *PROMPT.split(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "recorded run.yaml" in r.stdout
    text = (tmp_path / "run.yaml").read_text(encoding="utf-8")
    sc = load_scenario(tmp_path / "run.yaml")
    assert sc.initial_prompt == PROMPT and sc.ah is not None and "agent.py {prompt}" in sc.ah.cmd
    assert '"exitCode":3' in text and '"command":"wc -l < hello.txt; exit 3"' in text  # the shell command, its code
    assert '- toolResult: {"toolCallId":"call_b1","content":"2\\nExit code: 3"' in text
    assert '- assert: {"fs":{"contents":{"hello.txt":"hello\\nworld\\n"}}}' in text
    assert "autocue-record-" not in text  # the session key never reaches the file
    assert autocue("scenario", "check", "--strict", "run.yaml", cwd=tmp_path).returncode == 0

    ok = autocue("run", "run.yaml", "--out", "out", cwd=tmp_path)
    assert ok.returncode == 0 and "PASS" in ok.stdout, ok.stdout + ok.stderr

    bad = autocue("run", _changed(tmp_path / "run.yaml", 1).name, "--out", "out", cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout  # strict (the recording's server.match): the tool result differs
    assert "(--match strict): request 2 of session" in bad.stdout and "(tool): content differs" in bad.stdout
    loose = autocue("run", _changed(tmp_path / "run.yaml", 1).name, "--match", "loose", "--out", "out", cwd=tmp_path)
    assert "fs.contents hello.txt: expected 'hello\\nworld\\n', got '(missing)'" in loose.stdout, loose.stdout


def test_tui_run_of_two_turns_fails_at_the_first_turn_that_differs(tmp_path: Path) -> None:
    out = tmp_path / "tui.yaml"
    with serve(FIXTURES / "upstream.yaml") as up:
        record_run(CaptureOptions(upstream=up.base_url, out=out, prompt=PROMPT, cmd=AGENT, via="tui",
                                  inputs=["now add notes.md"], timeout=90))
    sc = load_scenario(out)
    kinds = [type(e).__name__ for e in sc.timeline]
    assert kinds == ["UserInputs", "LlmResponse", "LlmResponse", "LlmResponse", "AssertStep", "UserInputs",
                     "LlmResponse", "LlmResponse", "AssertStep"]
    first, second = (e for e in sc.timeline if type(e).__name__ == "AssertStep")
    assert first.spec.fs_contents == {"hello.txt": "hello\nworld\n"}  # type: ignore[union-attr]
    assert second.spec.fs_contents == {"notes/notes.md": "# Notes\n"}  # type: ignore[union-attr]

    ok = autocue("run", out.name, "--out", "o", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = autocue("run", _changed(out, 2).name, "--out", "o", cwd=tmp_path)
    assert bad.returncode == 1  # strict: turn 2's first tool result differs, and the run ends there, not at a timeout
    [line] = [ln for ln in bad.stdout.splitlines() if "(--match strict)" in ln]
    assert "(turn 2, step 2)" in line and "messages[8] (tool): content differs" in line and "timeout" not in bad.stdout
    bad = autocue("run", _changed(out, 2).name, "--match", "loose", "--out", "o", cwd=tmp_path)
    failures = [ln for ln in bad.stdout.splitlines() if "assert:" in ln]
    assert len(failures) == 1 and f":{second.pos.line}:" in failures[0] and "notes/notes.md" in failures[0], bad.stdout


def test_workspace_snapshot_hashes_big_files_skips_ignored_and_notes_deletions(tmp_path: Path, monkeypatch:
                                                                               pytest.MonkeyPatch) -> None:
    from autocue.record import run_parts

    monkeypatch.setattr(run_parts, "MAX_TEXT", 16)
    monkeypatch.setattr(run_parts, "MAX_BINARY", 64)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "old.txt").write_text("bye")
    git = tmp_path / "g"
    before = run_parts.snapshot(ws, git)
    (ws / "old.txt").unlink()
    (ws / "small.txt").write_text("tiny")
    (ws / "big.txt").write_text("x" * 40)
    (ws / "blob.bin").write_bytes(b"\0\1" * 10)
    (ws / "huge.bin").write_bytes(b"\0" * 100)
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_text("ignored")
    (ws / "run.log").write_text("ignored")
    after = run_parts.snapshot(ws, git)
    item = run_parts.changes(ws, before, after, 1)
    assert item is not None
    fs = item["assert"]["fs"]
    assert fs["contents"] == {"small.txt": "tiny"}
    assert set(fs["sha256"]) == {"big.txt", "blob.bin"} and fs["notExists"] == ["old.txt"]
    skipped = {s["path"]: s["why"] for s in item["_meta"]["skipped"]}
    assert skipped == {"huge.bin": "binary, 100 bytes (over 64)", "build/out.o": "ignored by .gitignore",
                       "run.log": "ignored by .gitignore"}
    assert run_parts.changes(ws, after, run_parts.snapshot(ws, git), 2) is None  # nothing changed


@pytest.mark.parametrize(("args", "message"), [
    (["--", "hi"], "a prompt is for recording a whole run: name the program with --agent NAME or --cmd COMMAND"),
    (["--agent", "nosuch", "--", "hi"], "--agent 'nosuch': unknown launch profile"),
    (["--agent", "pi", "--via", "gui", "--", "hi"], "--via gui: not available (use print or tui or acp)"),
    (["--agent", "pi", "--input", "more", "--", "hi"], "--input is a later turn: it needs --via tui or acp"),
    (["--agent", "pi"], "no prompt: give it after `--`"),
    (["--agent", "pi", "--cmd", "x", "--", "hi"], "--agent and --cmd both name the program to record"),
])
def test_bad_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    r = autocue("record", "--upstream", "http://127.0.0.1:9", *args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr


def test_mcp_tee_relays_a_stdio_server_for_the_official_client_and_logs_its_calls(tmp_path: Path) -> None:
    import asyncio
    import os

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from autocue.record.mcp_tee import read_calls, wrap_servers
    from autocue.testing import fake_mcp_server

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_support"))
    import mcp_handlers

    log = tmp_path / "tee.jsonl"
    with fake_mcp_server({"echo": mcp_handlers.echo}, transport="stdio") as srv:
        cfg = wrap_servers({"mcpServers": {"notes": srv.config}})["mcpServers"]["notes"]
        assert cfg["args"][:4] == ["-m", "autocue.record.mcp_tee", "--name", "notes"]

        async def go() -> str:
            env = {**os.environ, **(cfg.get("env") or {}), "AUTOCUE_MCP_TEE_LOG": str(log)}
            params = StdioServerParameters(command=cfg["command"], args=cfg["args"], env=env)
            async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                res = await s.call_tool("echo", {"text": "hi"})
                return str(res.content[0].text)  # type: ignore[union-attr]

        said = asyncio.run(go())
    assert said.startswith("echo hi from pid")
    (call,) = read_calls(log)
    assert call["server"] == "notes" and call["method"] == "tools/call"
    assert call["params"]["arguments"] == {"text": "hi"} and call["result"]["content"][0]["text"] == said


def test_a_seeded_workspace_is_copied_and_named_for_the_replay(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "README.md").write_text("seeded\n")
    (seed / "hello.txt").write_text("old\n")  # the run changes it
    out = tmp_path / "seeded.yaml"
    with serve(FIXTURES / "upstream.yaml") as up:
        record_run(CaptureOptions(upstream=up.base_url, out=out, prompt=PROMPT, cmd=f"{AGENT} {{prompt}}",
                                  workspace=seed))
    assert (seed / "hello.txt").read_text() == "old\n"  # the seed folder itself is never written
    sc = load_scenario(out)
    assert sc.repo is not None and Path(sc.repo.dir or "") == seed.resolve()
    (check,) = (e for e in sc.timeline if type(e).__name__ == "AssertStep")
    assert check.spec.fs_contents == {"hello.txt": "hello\nworld\n"}  # type: ignore[attr-defined]
    ok = autocue("run", out.name, "--out", "o", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_a_run_past_its_timeout_is_one_line_and_leaves_no_process(tmp_path: Path) -> None:
    import os

    pid_file = tmp_path / "pid"
    cmd = f"{{python}} -c \"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)\""
    r = autocue("record", "--upstream", "http://127.0.0.1:9", "--cmd", cmd, "--timeout", "1", "--", "hi", cwd=tmp_path)
    assert r.returncode == 2 and "the run did not finish within 1 s (--timeout)" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
