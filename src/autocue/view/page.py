"""One self-contained HTML page from a ``ViewDoc``: CSS, JavaScript and data inline, no network.

The data is one JSON block (``<`` escaped as ``\\u003c`` so no text ends the script); the
page's Content-Security-Policy allows no request at all, except the event stream of a live
page (``connect-src`` that server's origin: scheme, host and port, checked by ``live_origin``, so
nothing else of a URL reaches the HTML; every value put in it is escaped).
"""

from __future__ import annotations

import html
from functools import cache
from importlib import resources

import orjson

from autocue.view.sources import ViewDoc, live_origin


@cache
def _asset(name: str) -> str:
    return resources.files("autocue.view").joinpath("assets", name).read_text(encoding="utf-8")


def _short(s: str, n: int = 300) -> str:
    """At most ``n`` characters of ``s`` (a hostile title must not cost the page its first paint)."""
    return s if len(s) <= n else s[:n] + "…"


def render_html(doc: ViewDoc) -> str:
    data = orjson.dumps(doc.to_json()).decode("utf-8").replace("<", "\\u003c")
    connect = "'none'"
    if doc.live_url:  # scheme, host and port only: nothing of a hostile URL reaches the page's HTML
        connect = html.escape(live_origin(doc.live_url))
    page = _asset("page.html")
    # the data goes in last: nothing inside it is ever taken for a placeholder
    head, tail = page.split("__DATA__")
    head = (head.replace("__CONNECT__", connect).replace("__TITLE__", html.escape(_short(doc.title)))
            .replace("__CSS__", _asset("viewer.css")))
    tail = tail.replace("__JS__", _asset("viewer.js").replace("</", "<\\/"))
    return head + data + tail


__all__ = ["render_html"]
