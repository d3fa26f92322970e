"""A pytest fixture for the mock server, without registering a plugin.

Import it into a test module or ``conftest.py`` and point it at a source with the
``mock_llm_source`` fixture (or a ``mock_llm`` marker argument)::

    from autocue.mockllm import pytest_fixture as mock_llm

    @pytest.fixture
    def mock_llm_source():
        return "scenarios/hello.yaml"        # or a Script

    def test_agent(mock_llm):
        run_agent(base_url=mock_llm.base_url)

The fixture starts one server per test and stops it afterwards. ``pytest`` is imported
only when this module is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from autocue.mockllm.server import MockLLMServer


@pytest.fixture
def mock_llm(request: pytest.FixtureRequest) -> Iterator[MockLLMServer]:
    """A started ``MockLLMServer`` for this test (source: ``mock_llm_source`` fixture or a
    ``@pytest.mark.mock_llm(source, **options)`` marker)."""
    marker = request.node.get_closest_marker("mock_llm")
    source: Any = ()
    options: dict[str, Any] = {}
    if marker is not None:
        if marker.args:
            source = marker.args[0]
        options = dict(marker.kwargs)
    else:
        try:
            source = request.getfixturevalue("mock_llm_source")
        except pytest.FixtureLookupError:
            raise pytest.UsageError(
                "the mock_llm fixture needs a source: define a `mock_llm_source` fixture returning a Script, "
                "scenario or path, or mark the test with @pytest.mark.mock_llm(source)"
            ) from None
    with MockLLMServer(source, **options) as server:
        yield server


pytest_fixture = mock_llm
"""The name ``autocue.mockllm`` exports it under (``from autocue.mockllm import pytest_fixture as mock_llm``)."""
