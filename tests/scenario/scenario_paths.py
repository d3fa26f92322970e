"""Paths shared by the scenario tests (fixtures, examples, the harbor conformance files)."""

from __future__ import annotations

from pathlib import Path

from conformance import HARBOR as CONFORMANCE_HARBOR
from conformance import harbor_scenarios

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GOOD = HERE / "fixtures" / "good"
BROKEN = HERE / "fixtures" / "broken"
EXAMPLES = ROOT / "examples" / "scenarios"
HARBOR = CONFORMANCE_HARBOR


def harbor_files() -> list[Path]:
    return harbor_scenarios()
