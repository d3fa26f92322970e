"""A real Chromium (the system package, found by path) driven by Playwright, for the viewer's browser tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("AUTOCUE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's `chromium` package, or set AUTOCUE_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e .[dev])")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    """A fresh page; JavaScript errors fail the test; ``page.shot(name)`` saves a screenshot under tmp_path."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    def shot(name: str) -> Path:
        out = tmp_path / "screenshots" / f"{name}.png"
        out.parent.mkdir(exist_ok=True)
        pg.screenshot(path=str(out))
        return out

    pg.shot = shot
    pg.js_errors = errors
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
