"""Shared set-up for the sandbox tests: one wheel cache per test run, and no network, ever.

The cache (the running autocue's wheel and the repacked wheelhouse) is shared by every test
and every xdist worker of a run, so the expensive part is built once. Every installer runs
with ``--no-index``/``--offline``; on top of that, proxies point at a closed local port so
any attempt to reach the network fails at once instead of hanging.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autocue.sandbox.check import SandboxResult, verify_sandbox_install

FIXTURES = Path(__file__).parent / "fixtures"
PLANNER = Path(__file__).resolve().parents[2] / "examples" / "planner"


@pytest.fixture(scope="session")
def sandbox_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this run
    cache = base / "autocue-sandbox-cache"
    cache.mkdir(exist_ok=True)
    return cache


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)


@pytest.fixture
def verify(sandbox_cache: Path, tmp_path: Path) -> Callable[..., SandboxResult]:
    """``verify(package_dir, **kw)``: the check with the shared cache, its temp dirs under tmp_path/sbx."""

    def run(package_dir: str | os.PathLike[str], **kw: Any) -> SandboxResult:
        kw.setdefault("cache_dir", sandbox_cache)
        kw.setdefault("temp_parent", tmp_path / "sbx")
        kw.setdefault("check", False)
        return verify_sandbox_install(package_dir, **kw)

    return run
