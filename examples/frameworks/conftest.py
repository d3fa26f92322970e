"""The framework examples each have an ``agent.py`` their test imports as ``agent``: pytest puts
each test's folder first on ``sys.path``, and forgetting the last ``agent`` module before it
collects the next test file makes that import find the file beside it when one run collects
several examples (autocue's own suite does)."""

from __future__ import annotations

import sys

import pytest


def pytest_collectstart(collector: pytest.Collector) -> None:
    if isinstance(collector, pytest.Module):
        sys.modules.pop("agent", None)
