"""The conformance data copied into the repository (tests/fixtures/conformance): the one place tests find it.

Every path here is inside the repository, so a clone with nothing beside it runs the whole
suite; ``tests/test_self_contained.py`` checks that nothing reaches outside.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CONFORMANCE = FIXTURES / "conformance"
PI_SESSIONS = CONFORMANCE / "pi-sessions"
HARBOR = CONFORMANCE / "harbor"
RALPH = CONFORMANCE / "ralph"


def pi_session_files() -> list[Path]:
    """The real pi session files, sorted by name (never empty: a missing copy is a failure, not a skip)."""
    return _files(PI_SESSIONS, "*.jsonl")


def harbor_scenarios() -> list[Path]:
    """The agent-harbor scenario files, sorted by name."""
    return _files(HARBOR, "*.yaml")


def _files(folder: Path, pattern: str) -> list[Path]:
    found = sorted(folder.glob(pattern))
    if not found:
        raise FileNotFoundError(f"{folder}: no {pattern} files (the repository's tests/fixtures copy is incomplete)")
    return found
