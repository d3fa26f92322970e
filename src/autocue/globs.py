"""autocue's one glob dialect, on ``wcmatch``: the tools' ``find``/``grep`` globs and ignore
files, and the test tools' include/exclude globs and event-type filters.

The rules (those of ripgrep's ``--glob`` and of ``.gitignore``):

- ``*`` is any run of characters within one path segment and ``?`` one character; neither
  crosses ``/``, and both match names that start with ``.``.
- ``**`` as a whole segment spans any number of directories, none included (``**/x``,
  ``a/**/b``, ``src/**``); anywhere else (``a**b``) it is ``*``.
- ``[abc]``, ``[a-z]``, ``[!a]`` / ``[^a]`` are character classes.
- ``{a,b}`` are alternatives (nested ones too, ``{a,{b,c}}``); a glob expands to at most
  ``MAX_EXPANSIONS`` patterns, more is a ``GlobError``.
- ``\\`` escapes the next character.

``glob_regex(glob)`` is the glob as one compiled regex over a whole ``/``-separated relative
path. ``PathGlob`` is a tool's user glob (without ``/`` it matches the base name at any depth,
a leading ``!`` negates). ``path_matches(path, patterns)`` is the test tools' rule: a pattern
without ``/`` also matches the base name, and ``dir/`` or a pattern whose last segment has no
wildcard also matches everything under it.

Why ``wcmatch`` (not ``pathspec``): the tools' globs need ``{a,b}`` alternatives
(``*.{ts,tsx}``, as ripgrep and fd take them), which ``pathspec``'s gitignore patterns do not
have; ``wcmatch`` has them, globstar and escapes behind explicit flags, and translates a glob
into a regex, so a pattern is compiled once and matching stays a regex match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from wcmatch import glob as wc
from wcmatch._wcparse import PatternLimitException  # raised by wc.translate; wcmatch documents it there

from autocue.errors import AutocueError

FLAGS = wc.GLOBSTAR | wc.BRACE | wc.DOTGLOB | wc.FORCEUNIX
"""``**`` spans directories, ``{a,b}`` alternatives, ``*`` matches dotfiles, ``/`` separates."""

MAX_EXPANSIONS = 1000
"""Most patterns one glob may expand to through ``{...}``."""

_WILDCARDS = "*?["


class GlobError(AutocueError, ValueError):
    """A glob autocue will not use (its braces expand to too many patterns)."""


@lru_cache(maxsize=1024)
def glob_regex(glob: str) -> re.Pattern[str]:
    """``glob`` as a regex matching a whole relative path (``/``-separated)."""
    return _regex((glob,))


def _regex(globs: tuple[str, ...]) -> re.Pattern[str]:
    parts: list[str] = []
    for g in globs:
        try:
            positive, _negative = wc.translate(g, flags=FLAGS, limit=MAX_EXPANSIONS)
        except PatternLimitException:
            raise GlobError(
                f"glob {g!r}: its {{...}} alternatives expand to more than {MAX_EXPANSIONS} patterns; "
                "use fewer or shorter alternatives"
            ) from None
        parts.extend(positive)
    return re.compile("(?:" + "|".join(parts) + r")\Z")


class PathGlob:
    """A tool's user glob (``*.py``, ``src/**/*.ts``, ``!*.min.js``) tested against a relative path."""

    __slots__ = ("by_name", "negated", "regex", "text")

    def __init__(self, glob: str) -> None:
        self.text = glob
        self.negated = glob.startswith("!")
        body = glob[1:] if self.negated else glob
        self.by_name = "/" not in body.rstrip("/")
        self.regex = glob_regex(body.lstrip("/").rstrip("/") if not self.by_name else body.rstrip("/"))

    def matches(self, rel: str) -> bool:
        target = rel.rsplit("/", 1)[-1] if self.by_name else rel
        return self.regex.match(target) is not None

    def override(self, rel: str, is_dir: bool) -> bool | None:
        """ripgrep's ``--glob`` rule: a match of a plain glob includes the path even when an
        ignore file excludes it, a match of a ``!`` glob excludes it; a file that a plain glob
        does not match is excluded; otherwise (None) the ignore files decide."""
        if self.matches(rel):
            return not self.negated
        if self.negated or is_dir:
            return None
        return False


@lru_cache(maxsize=256)
def tree_glob(pattern: str) -> re.Pattern[str]:
    """The test tools' pattern as a regex: ``./`` dropped; ``dir/``, or a last segment without
    a wildcard, covers everything under it too."""
    p = pattern.strip()
    if p.startswith("./"):
        p = p.lstrip("./")
    if p.endswith("/"):
        p += "**"
    last = p.rstrip("/").rsplit("/", 1)[-1]
    if any(c in last for c in _WILDCARDS):
        return _regex((p,))
    return _regex((p, p.rstrip("/") + "/**"))


def path_matches(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` matches any of ``patterns`` (``tree_glob``; one without ``/`` also
    matches the base name)."""
    base = path.rsplit("/", 1)[-1]
    for pat in patterns:
        rx = tree_glob(pat)
        if rx.match(path) or ("/" not in pat.rstrip("/") and rx.match(base)):
            return True
    return False


__all__ = ["FLAGS", "MAX_EXPANSIONS", "GlobError", "PathGlob", "glob_regex", "path_matches", "tree_glob"]
