"""RPC ``export_html`` writes the session's viewer page (a real AgentSession behind the RPC server)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from view_helpers import page_data

from autocue.modes.rpc_mode import RpcServer
from autocue.testing import create_test_session, say, when


async def export(t: object, line: dict[str, object]) -> dict[str, object]:
    out = io.BytesIO()
    server = RpcServer(t.session, None, None, out)  # type: ignore[attr-defined]
    await server.handle_line(json.dumps(line).encode())
    return dict(json.loads(out.getvalue().splitlines()[-1]))


async def test_export_html_writes_the_page_and_answers_its_path(tmp_path: Path) -> None:
    t = create_test_session(cwd=tmp_path)
    try:
        await t.run(when("Say hi", [say("Hi there.")]))
        r = await export(t, {"type": "export_html", "id": 7, "outputPath": "chat.html"})
        assert r == {"id": 7, "type": "response", "command": "export_html", "success": True,
                     "data": {"path": str(tmp_path / "chat.html")}}
        events = page_data((tmp_path / "chat.html").read_text())["events"]
        assert [(e["type"], e.get("text")) for e in events if e["type"] in ("user", "assistant")] == [
            ("user", "Say hi"), ("assistant", "Hi there.")]
        default = await export(t, {"type": "export_html"})
        assert default["success"] is True and Path(str(default["data"]["path"])).parent == tmp_path  # type: ignore[index]
    finally:
        await t.adispose()


async def test_export_html_never_replaces_a_foreign_file(tmp_path: Path) -> None:
    (tmp_path / "notes.html").write_text("mine")
    t = create_test_session(cwd=tmp_path)
    try:
        await t.run(when("Say hi", [say("Hi.")]))
        r = await export(t, {"type": "export_html", "outputPath": "notes.html"})
    finally:
        await t.adispose()
    assert r["success"] is False and "notes.html exists and was not written by autocue view" in str(r["error"])
    assert (tmp_path / "notes.html").read_text() == "mine"


async def test_interactive_export_command_writes_the_page(tmp_path: Path) -> None:
    from autocue.modes.interactive import _builtin, _Printer

    out = io.StringIO()
    t = create_test_session(cwd=tmp_path)
    try:
        await t.run(when("Say hi", [say("Hi.")]))
        assert await _builtin("/export chat.html", t.session, None, _Printer(out, False)) == "done"
        (tmp_path / "mine.html").write_text("mine")
        await _builtin("/export mine.html", t.session, None, _Printer(out, False))
    finally:
        await t.adispose()
    lines = out.getvalue().splitlines()
    assert lines[0] == f"wrote {tmp_path / 'chat.html'}"
    assert lines[1].startswith(f"/export: {tmp_path / 'mine.html'} exists and was not written by autocue view")
    assert page_data((tmp_path / "chat.html").read_text())["kind"] == "session"
