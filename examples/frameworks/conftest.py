"""The framework examples each have an ``agent.py`` their test imports as ``agent``: pytest puts
each test's folder first on ``sys.path``, and forgetting the last ``agent`` module before it
collects the next test file makes that import find the file beside it when one run collects
several examples (autocue's own suite does).

pytest also puts this folder on ``sys.path`` for this file; there each example's folder, named
after its framework (``crewai/``, ``strands/``), would pass for the framework itself (a namespace
package), and ``pytest.importorskip("crewai")`` would "find" it where the framework is not
installed. The folder leaves ``sys.path`` once this file is loaded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p != _HERE and p != str(Path(__file__).parent)]


def pytest_collectstart(collector: pytest.Collector) -> None:
    if isinstance(collector, pytest.Module):
        sys.modules.pop("agent", None)
