"""``AutocueError``: the root of every exception autocue raises on purpose.

Each autocue exception also keeps the standard-library base that says what kind of failure it
is (``class ScenarioError(AutocueError, ValueError)``), so ``except ValueError`` keeps working
and ``except autocue.AutocueError`` catches everything autocue raises on purpose. The tree is
listed in docs/architecture.md. ``nearest`` is the one "did you mean" of a misspelled name
(a command, a profile).
"""

from __future__ import annotations

from collections.abc import Iterable


class AutocueError(Exception):
    """Something autocue reports on purpose: bad input, a failed check, a refused action."""


class MissingExtraError(AutocueError, ImportError):
    """A feature needs an optional dependency that is not installed; the message names the extra."""

    def __init__(self, extra: str, feature: str, missing: str) -> None:
        self.extra = extra
        super().__init__(f"{feature} needs the {missing!r} package, which is not installed: "
                         f"pip install 'autocue[{extra}]'", name=missing)


def require_extra(err: ModuleNotFoundError, package: str, extra: str, feature: str) -> MissingExtraError:
    """The ``MissingExtraError`` for ``err`` when ``package`` itself is missing; ``err`` re-raised otherwise
    (a broken import inside an installed package stays a real error)."""
    name = err.name or ""
    if name != package and not name.startswith(package + "."):
        raise err
    return MissingExtraError(extra, feature, package)


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, or swap two neighbours) that turn ``a`` into ``b``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            d = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                d = min(d, prev2[j - 2] + 1)
            row.append(d)
        prev2, prev = prev, row
    return prev[-1]


def nearest(word: str, known: Iterable[str], max_distance: int = 2) -> str | None:
    """The known name ``word`` is a likely misspelling of: the first at the least edit distance,
    at most ``max_distance`` (and less than ``word``'s length, so a short word is not "near"
    everything); case is ignored. None when nothing is that near."""
    w = word.lower()
    limit = min(max_distance, len(w) - 1)
    best: tuple[int, str] | None = None
    for name in known:
        d = edit_distance(w, name.lower())
        if d <= limit and (best is None or d < best[0]):
            best = (d, name)
    return best[1] if best else None


__all__ = ["AutocueError", "MissingExtraError", "edit_distance", "nearest", "require_extra"]
