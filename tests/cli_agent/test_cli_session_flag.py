"""``--session FILE`` means "use or create": a missing file is created explicitly, a bad one is one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import chat_text, run_cli, setup_home
from provider_wire_server import WireServer

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'


@pytest.mark.slow
def test_session_flag_creates_a_missing_file_then_resumes_it(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    work = tmp_path / "work"
    work.mkdir()
    target = tmp_path / "kept" / "mine.jsonl"
    server.push(chat_text("Hello there"))
    r = run_cli(["-p", "--session", str(target), "say hello"], env, work)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["cwd"] == str(work)
    assert [e["message"]["role"] for e in lines[1:] if e["type"] == "message"] == ["user", "assistant"]
    server.push(chat_text("Again"))
    r2 = run_cli(["-p", "--session", str(target), "once more"], env, work)
    assert r2.returncode == 0, r2.stderr
    assert [m["role"] for m in server.requests[1].body["messages"][1:]] == ["user", "assistant", "user"]
    assert not list((tmp_path / "home").glob("sessions/*/*.jsonl"))  # nothing written anywhere else


@pytest.mark.slow
@pytest.mark.parametrize(("content", "expected"), [
    (HEADER + '{"type":"mess\n' + HEADER, r"{path}:2: corrupt line, not valid JSON \(.*\); only the last line"),
    ('{"type":"session","version":"3","id":"s1","timestamp":"t","cwd":"/w"}\n',
     r'{path}:1: session header "version" must be a JSON integer \(1, 2 or 3\), got "3"; a session file starts'),
    (None, r"{path}: is a directory, not a session file"),
])
def test_session_flag_on_a_bad_file_is_one_error_line_and_the_file_is_untouched(
    tmp_path: Path, server: WireServer, content: str | None, expected: str
) -> None:
    import re

    env = setup_home(tmp_path, server)
    target = tmp_path / "bad.jsonl"
    if content is None:
        target.mkdir()
    else:
        target.write_text(content)
    r = run_cli(["-p", "--session", str(target), "hi"], env, tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert re.fullmatch("autocue: --session: " + expected.format(path=re.escape(str(target))) + r".*\n", r.stderr)
    assert server.requests == []
    if content is not None:
        assert target.read_text() == content and sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "home"]
