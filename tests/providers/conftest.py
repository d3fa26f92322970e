"""Fixtures for provider tests: ``server``, a running loopback ``WireServer``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from provider_wire_server import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as s:
        yield s
