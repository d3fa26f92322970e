"""Deterministic directory walking for ``grep`` (pure-Python backend) and ``find``.

* Globs (the tools' user globs and the ignore files' patterns) are ``autocue.globs``; the
  rules are in that module and docs/tools.md.
* ``walk(root, ...)``: entries below ``root`` in path order (siblings sorted by name,
  depth first, like ``rg --sort path``), hidden files included, ``.git`` skipped, symlinks not
  followed, and the ``.gitignore`` / ``.ignore`` / ``.rgignore`` files found from ``root``
  down respected (no global or parent ignore files, git repository or not).

Public: ``IgnoreRules``, ``Entry``, ``walk``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autocue.globs import glob_regex

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
ALWAYS_SKIP = frozenset({".git"})


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
