"""The viewer's part of autocue's pytest plugin (``autocue.pytest_plugin``, which imports this on first use).

When a test fails, its report gains a section "autocue view" with the path of each of its
``TestSession``s' viewer page, written under ``.autocue/view`` of the rootdir;
``--autocue-html DIR`` writes the pages of every test into DIR.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from autocue.view.pytest_pages import DEFAULT_DIR, write_test_pages

if TYPE_CHECKING:
    from autocue.testing.session import TestSession


def write_pages(item: pytest.Item, sessions: list[TestSession], folder: Path | None) -> str:
    """Write the viewer page of the test's sessions into ``folder`` (default: ``.autocue/view`` of the rootdir);
    the text of the report section: one path a line."""
    pages = write_test_pages(item.nodeid, [t.session.session_manager for t in sessions],
                             folder or item.config.rootpath / DEFAULT_DIR)
    return "\n".join(str(p) for p in pages)
