"""Shared parts of the sandbox-provider tests (tests/isolation, tests/realagents/test_sandbox_agents.py): the
egress probe and a skip when bwrap cannot run here."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.isolation import find

PROBE = Path(__file__).resolve().parents[1] / "fixtures" / "egress_probe.py"


def bwrap_or_skip() -> None:
    why = find("bwrap").unavailable()
    if why is not None:
        pytest.skip(f"bwrap cannot run here: {why}")
