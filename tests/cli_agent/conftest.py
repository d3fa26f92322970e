"""Fixtures for the agent CLI tests: a loopback ``WireServer`` and an isolated autocue dir."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "providers"))

from provider_wire_server import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as s:
        yield s
