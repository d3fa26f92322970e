"""Typed reads of YAML nodes for the scenario loader: each read names the node's
``file:line:col`` and path when the value has the wrong shape (``ScenarioError``), and
collects ``ScenarioWarning``s for keys autocue does not use.

``NodeReader(file)`` is the base of ``PartReader`` and ``ScenarioLoader``; ``near_miss``
finds the known name an unknown one is a likely misspelling of.
"""

from __future__ import annotations

import difflib
from typing import Any, NoReturn

from autocue.scenario.errors import Pos, ScenarioError, ScenarioWarning
from autocue.scenario.yamlsrc import Node, type_name


class NodeReader:
    """Reads the values of one file's nodes; collects warnings while it goes."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.warnings: list[ScenarioWarning] = []

    # ------------------------------------------------------------------ reporting
    def fail(self, n: Node, message: str) -> NoReturn:
        raise ScenarioError(message, n.pos, n.path)

    def warn(self, pos: Pos, path: str, message: str) -> None:
        self.warnings.append(ScenarioWarning(message, pos, path))

    def unknown_keys(self, n: Node, known: frozenset[str] | set[str] | tuple[str, ...], what: str) -> None:
        for k in n.key_names():
            if k not in known:
                self.warn(n.key_pos(k), n.key_path(str(k)), f"unknown key {str(k)!r} in {what} is ignored")

    def not_misspelt(self, n: Node, key: str, known: tuple[str, ...], what: str) -> None:
        """Fail on ``key`` (a key of ``n``, not in ``known``) when it is a near-miss of a known name."""
        guess = near_miss(key, known)
        if guess is not None:
            raise ScenarioError(f"unknown {what} {key!r}: did you mean `{guess}`?", n.key_pos(key), n.key_path(key))

    # ------------------------------------------------------------------ scalars
    def str_(self, n: Node, what: str = "a string") -> str:
        if not isinstance(n.v, str):
            self.fail(n, f"expected {what}, got {type_name(n.v)}" + quote_hint(n.v))
        return str(n.v)

    def opt_str(self, m: Node, *names: str) -> str | None:
        n = m.get(*names)
        return None if n is None or n.v is None else self.str_(n)

    def int_(self, n: Node, what: str = "an integer", minimum: int | None = 0) -> int:
        v = n.v
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(n, f"expected {what}, got {type_name(v)}")
        if minimum is not None and v < minimum:
            self.fail(n, f"expected {what} >= {minimum}, got {v}")
        return int(v)

    def num(self, n: Node, what: str = "a number") -> float:
        v = n.v
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(n, f"expected {what}, got {type_name(v)}")
        if v < 0:
            self.fail(n, f"expected {what} >= 0, got {v}")
        try:
            return float(v)
        except OverflowError:  # an integer of hundreds of digits
            self.fail(n, f"expected {what}, got an integer too large for a number")

    def bool_(self, n: Node, what: str = "true or false") -> bool:
        if n.v is None:
            return True
        if not isinstance(n.v, bool):
            self.fail(n, f"expected {what}, got {type_name(n.v)}")
        return bool(n.v)

    def map_(self, n: Node, what: str = "a mapping", known: tuple[str, ...] | None = None, name: str = "") -> Node:
        """``n``, a mapping; with ``known``, other keys are warned about as unknown in ``name``."""
        if not n.is_map:
            self.fail(n, f"expected {what}, got {type_name(n.v)}")
        if known is not None:
            self.unknown_keys(n, known, name)
        return n

    def seq(self, n: Node, what: str = "a list") -> Node:
        if not n.is_seq:
            self.fail(n, f"expected {what}, got {type_name(n.v)}")
        return n

    def str_list(self, n: Node, what: str = "a list of strings", *, single_ok: bool = False) -> list[str]:
        if single_ok and isinstance(n.v, str):
            return [str(n.v)]
        self.seq(n, what)
        return [self.str_(i) for i in n.items()]

    def require(self, m: Node, *names: str, what: str) -> Node:
        got = m.get(*names)
        if got is None:
            alts = " or ".join(repr(x) for x in names)
            raise ScenarioError(f"missing {alts}: {what}", m.pos, m.key_path(names[0]))
        return got


def near_miss(word: str, known: tuple[str, ...]) -> str | None:
    """The known name ``word`` is a likely misspelling of (same letters in another case, or close), if any."""
    by_lower = {k.lower(): k for k in known}
    lower = word.lower()
    if lower in by_lower:
        return by_lower[lower]
    close = difflib.get_close_matches(lower, list(by_lower), n=1, cutoff=NEAR_MISS_CUTOFF)
    return by_lower[close[0]] if close else None


NEAR_MISS_CUTOFF = 0.8
"""``difflib`` similarity from which an unknown name counts as a misspelling (``llmRespons``: 0.95)."""



def quote_hint(v: Any) -> str:
    if isinstance(v, (int, float, bool)):
        return ": quote the value to make it a string"
    return ""

