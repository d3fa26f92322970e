"""``AutocueError``: the root of every exception autocue raises on purpose.

Each autocue exception also keeps the standard-library base that says what kind of failure it
is (``class ScenarioError(AutocueError, ValueError)``), so ``except ValueError`` keeps working
and ``except autocue.AutocueError`` catches everything autocue raises on purpose. The tree is
listed in docs/architecture.md.
"""

from __future__ import annotations


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


__all__ = ["AutocueError", "MissingExtraError", "require_extra"]
