"""``export_session_html``: the viewer page of a live agent session (RPC ``export_html``).

Without a path the page goes next to the session file (``NAME.html``), or, for a session
kept in memory, to ``autocue-session-ID.html`` in the session's working directory. An
existing file is replaced only if ``autocue view`` wrote it.
"""

from __future__ import annotations

from pathlib import Path

from autocue.session.manager import SessionManager
from autocue.view.page import render_html
from autocue.view.sources import session_doc

MARK = b'<meta name="generator" content="autocue view">'


def export_session_html(sm: SessionManager, cwd: str, output: str | None = None) -> Path:
    file = sm.get_session_file()
    if output:
        target = Path(cwd) / output
    elif file:
        target = Path(file).with_suffix(".html")
    else:
        target = Path(cwd) / f"autocue-session-{sm.get_session_id()}.html"
    if target.exists():
        with target.open("rb") as f:
            if MARK not in f.read(4096):
                raise ValueError(f"{target} exists and was not written by autocue view; give another outputPath")
    title = sm.get_session_name() or (Path(file).name if file else sm.get_session_id())
    tmp = target.with_name(f".{target.name}.autocue-tmp")
    tmp.write_text(render_html(session_doc(sm, title, file or "(in memory)")), encoding="utf-8")
    tmp.replace(target)
    return target


__all__ = ["export_session_html"]
