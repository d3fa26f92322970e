"""``AutocueError``: the root of every exception autocue raises on purpose.

Each autocue exception also keeps the standard-library base that says what kind of failure it
is (``class ScenarioError(AutocueError, ValueError)``), so ``except ValueError`` keeps working
and ``except autocue.AutocueError`` catches everything autocue raises on purpose. The tree is
listed in docs/architecture.md.
"""

from __future__ import annotations


class AutocueError(Exception):
    """Something autocue reports on purpose: bad input, a failed check, a refused action."""


__all__ = ["AutocueError"]
