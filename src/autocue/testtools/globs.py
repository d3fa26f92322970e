"""Path globs for snapshots: ``*`` (within a segment), ``?``, ``**`` (any depth), ``[...]``.

Public surface: ``compile_glob(pattern)``, ``path_matches(path, patterns)``.

A pattern without ``/`` also matches a file's base name anywhere (``*.rs`` matches
``src/main.rs``), as in ``.gitignore``. A pattern ending in ``/`` or naming a directory
matches everything under it (``.agent/`` or ``.agent``); ``src/*`` matches only the files
directly in ``src``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    p = pattern.strip().lstrip("./") if pattern.startswith("./") else pattern.strip()
    if p.endswith("/"):
        p += "**"
    out: list[str] = []
    i = 0
    while i < len(p):
        c = p[i]
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = p.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = p[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    last = p.rstrip("/").rsplit("/", 1)[-1]
    under = "" if any(c in last for c in "*?[") else "(?:/.*)?"
    return re.compile("".join(out) + under + "\\Z")


def path_matches(path: str, patterns: Sequence[str]) -> bool:
    base = path.rsplit("/", 1)[-1]
    for pat in patterns:
        rx = compile_glob(pat)
        if rx.match(path) or ("/" not in pat.rstrip("/") and rx.match(base)):
            return True
    return False


__all__ = ["compile_glob", "path_matches"]
