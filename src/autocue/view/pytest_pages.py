"""Viewer pages for tests: the pytest plugin writes one per autocue session a test created.

``write_test_pages(nodeid, managers, folder)`` renders each ``SessionManager`` (in memory or on
disk) into ``folder/<test id>[-N].html`` and returns the paths. ``DEFAULT_DIR`` (under the
rootdir) holds the pages of failing tests when ``--autocue-html DIR`` is not given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from autocue.session.manager import SessionManager
from autocue.view.page import render_html
from autocue.view.sources import session_doc

DEFAULT_DIR = Path(".autocue") / "view"


def page_name(nodeid: str) -> str:
    """A file name for a test id (``tests/x.py::test_a[1]`` → ``tests_x.py__test_a_1``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.replace("::", "__")).strip("_.")
    return name[:150] or "test"


def write_test_pages(nodeid: str, managers: Sequence[SessionManager], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    base = page_name(nodeid)
    for i, sm in enumerate(managers):
        path = folder / (f"{base}-{i + 1}.html" if len(managers) > 1 else f"{base}.html")
        title = f"{nodeid}" + (f" (session {i + 1})" if len(managers) > 1 else "")
        path.write_text(render_html(session_doc(sm, title, nodeid)), encoding="utf-8")
        out.append(path)
    return out


__all__ = ["DEFAULT_DIR", "page_name", "write_test_pages"]
