"""Fixtures for the mock server tests (builders live in tests/_support/mockllm_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mockllm_helpers import tools_script

from autocue.mockllm import MockLLMServer, serve


@pytest.fixture
def tools_server() -> Iterator[MockLLMServer]:
    with serve(tools_script()) as s:
        yield s
