"""Session files written by pi itself resume through AgentSession and keep growing as pi's do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conformance import pi_session_files
from session_helpers import make_session, say

from autocue.session import SessionManager

PI_FILES = pi_session_files()


@pytest.mark.parametrize("src", PI_FILES, ids=lambda p: p.name)
async def test_pi_file_resumes_and_continues(src: Path, tmp_path: Path) -> None:
    path = tmp_path / src.name
    shutil.copy(src, path)
    sm = SessionManager.open(str(path))
    expected = [m.to_json() for m in sm.build_session_context().messages]
    entries_before = len(sm.get_entries())
    session, provider = make_session([say("resumed fine")], session_manager=sm, cwd=tmp_path)
    assert [m.to_json() for m in session.messages] == expected
    assert len(sm.get_entries()) == entries_before  # resuming writes nothing
    await session.prompt("and now?")
    await session.dispose()
    assert provider.remaining == 0
    lines = path.read_text().splitlines()
    tail = [json.loads(x) for x in lines[-2:]]
    assert [t["message"]["role"] for t in tail] == ["user", "assistant"]
    assert tail[0]["parentId"] in {json.loads(x).get("id") for x in lines[1:-2]}
    again = SessionManager.open(str(path)).build_session_context().messages
    assert [m.to_json() for m in again][: len(expected)] == expected
    assert again[-1].text == "resumed fine"
