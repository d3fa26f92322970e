from __future__ import annotations

from pathlib import Path

import pytest

from autocue.checks import TestTools


@pytest.fixture
def tools(tmp_path: Path) -> TestTools:
    return TestTools(tmp_path / "root")
