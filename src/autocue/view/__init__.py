"""``autocue.view``: one self-contained HTML page for everything autocue records (docs/view.md).

Public surface: ``load_doc(path_or_url) -> ViewDoc`` (a session file, a loop recording, a run
directory of ``autocue run`` or a live ``autocue simulate`` session), ``render_html(doc)``,
``write_view(source, out) -> Path``, ``ViewSourceError``.
"""

from __future__ import annotations

from pathlib import Path

from autocue.view.page import render_html
from autocue.view.sources import ViewDoc, ViewSourceError, load_doc


def write_view(source: str | Path, out: str | Path) -> Path:
    """Render ``source`` into the HTML file ``out`` (written whole, then renamed into place)."""
    page = render_html(load_doc(str(source)))
    target = Path(out)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(target)
    return target


__all__ = ["ViewDoc", "ViewSourceError", "load_doc", "render_html", "write_view"]
