"""Deterministic directory walking for ``grep`` (pure-Python backend) and ``find``.

* ``glob_regex(glob)``: a glob as a compiled regex, gitignore style: ``*`` and ``?`` stop at
  ``/``, ``**/`` spans directories, ``[...]`` classes, ``{a,b}`` alternatives, ``\\`` escapes.
* ``PathGlob``: a user glob. Without ``/`` it matches the base name at any depth, with ``/``
  the path relative to the search root; a leading ``!`` negates.
* ``walk(root, ...)``: entries below ``root`` in path order (siblings sorted by name,
  depth first, like ``rg --sort path``), hidden files included, ``.git`` skipped, symlinks not
  followed, and the ``.gitignore`` / ``.ignore`` / ``.rgignore`` files found from ``root``
  down respected (no global or parent ignore files, git repository or not).

Public: ``glob_regex``, ``PathGlob``, ``IgnoreRules``, ``Entry``, ``walk``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
ALWAYS_SKIP = frozenset({".git"})


def _translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                j = i + 2
                at_start = i == 0 or pat[i - 1] == "/"
                if at_start and j < n and pat[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                if at_start and j == n:
                    out.append(".*")
                    i = j
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pat[j] in "!^":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(pat[j], 0)
                j += 1
            if depth:
                out.append(re.escape(c))
            else:
                alts = _split_top(pat[i + 1 : j - 1])
                out.append("(?:" + "|".join(_translate(a) for a in alts) + ")")
                i = j
                continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _split_top(s: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def glob_regex(glob: str) -> re.Pattern[str]:
    return re.compile("(?s:" + _translate(glob) + r")\Z")


class PathGlob:
    """A user glob (``*.py``, ``src/**/*.ts``, ``!*.min.js``) tested against a relative path."""

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


@dataclass(slots=True)
class _Rule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool
    anchored: bool


class IgnoreRules:
    """The rules of the ignore files of one directory (later rules win)."""

    __slots__ = ("base", "rules")

    def __init__(self, base: str, rules: list[_Rule]) -> None:
        self.base = base  # the directory, relative to the walk root ("" for the root)
        self.rules = rules

    @staticmethod
    def load(dir_abs: str, base: str) -> IgnoreRules | None:
        rules: list[_Rule] = []
        for name in IGNORE_FILES:
            try:
                with open(os.path.join(dir_abs, name), encoding="utf-8", errors="replace") as f:
                    lines = f.read().splitlines()
            except OSError:
                continue
            for line in lines:
                rule = _parse_rule(line)
                if rule is not None:
                    rules.append(rule)
        return IgnoreRules(base, rules) if rules else None

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by ``!``) or None (no rule matched)."""
        sub = rel[len(self.base) + 1 :] if self.base else rel
        name = sub.rsplit("/", 1)[-1]
        for r in reversed(self.rules):
            if r.dir_only and not is_dir:
                continue
            if r.regex.match(sub if r.anchored else name):
                return not r.negated
        return None


def _parse_rule(line: str) -> _Rule | None:
    s = line.rstrip()
    if not s or s.startswith("#"):
        return None
    negated = s.startswith("!")
    if negated or s.startswith(("\\!", "\\#")):
        s = s[1:]
    dir_only = s.endswith("/")
    s = s.rstrip("/")
    if not s:
        return None
    anchored = "/" in s
    s = s.lstrip("/")
    return _Rule(glob_regex(s), negated, dir_only, anchored)


@dataclass(slots=True)
class Entry:
    path: str  # absolute
    rel: str  # relative to the walk root, "/" separated
    is_dir: bool


def walk(
    root: str,
    *,
    use_ignore_files: bool = True,
    override: Callable[[str, bool], bool | None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[Entry]:
    """Entries below ``root`` (not ``root`` itself) in path order; see the module docstring.

    ``override(rel, is_dir)`` is asked first: True keeps the entry whatever the ignore files
    say, False drops it (a dropped directory is not entered), None lets the ignore files decide.
    """
    stack: list[IgnoreRules] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        for rules in reversed(stack):
            d = rules.decide(rel, is_dir)
            if d is not None:
                return d
        return False

    def visit(dir_abs: str, dir_rel: str) -> Iterator[Entry]:
        pushed = False
        if use_ignore_files:
            rules = IgnoreRules.load(dir_abs, dir_rel)
            if rules is not None:
                stack.append(rules)
                pushed = True
        try:
            try:
                with os.scandir(dir_abs) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                return
            for e in entries:
                if should_stop is not None and should_stop():
                    return
                if e.name in ALWAYS_SKIP:
                    continue
                try:
                    if e.is_symlink():
                        continue
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                rel = f"{dir_rel}/{e.name}" if dir_rel else e.name
                decided = override(rel, is_dir) if override is not None else None
                if decided is False or (decided is None and use_ignore_files and ignored(rel, is_dir)):
                    continue
                yield Entry(e.path, rel, is_dir)
                if is_dir:
                    yield from visit(e.path, rel)
        finally:
            if pushed:
                stack.pop()

    yield from visit(root, "")
