"""Paths shared by the scenario tests (fixtures, examples, the harbor conformance files)."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GOOD = HERE / "fixtures" / "good"
BROKEN = HERE / "fixtures" / "broken"
EXAMPLES = ROOT / "examples" / "scenarios"
HARBOR = Path(os.environ.get("AUTOCUE_CONFORMANCE_DIR", ROOT.parent / "shared" / "conformance")) / "harbor"


def harbor_files() -> list[Path]:
    return sorted(HARBOR.glob("*.yaml"))
