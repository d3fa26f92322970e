"""Temp dirs and venvs are always removed: on success, on failure, and on KeyboardInterrupt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from autocue.sandbox import check
from autocue.sandbox.check import SandboxResult

FIXTURES = Path(__file__).parent / "fixtures"

pytestmark = pytest.mark.slow


def _left(parent: Path) -> list[Path]:
    return list(parent.iterdir()) if parent.exists() else []


def test_removed_after_success_and_after_failure(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    ok = verify(FIXTURES / "good_ext", temp_parent=tmp_path / "a")
    assert ok.ok and _left(tmp_path / "a") == []
    bad = verify(FIXTURES / "missing_dependency", temp_parent=tmp_path / "b")
    assert not bad.ok and _left(tmp_path / "b") == []


@pytest.mark.parametrize("step", ["venv_step", "install_step", "child_step"])
def test_removed_on_keyboard_interrupt(
    verify: Callable[..., SandboxResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    seen: list[Path] = []

    def interrupted(ctx: Any, *args: Any) -> Any:
        seen.append(ctx.tmp)
        assert (ctx.tmp / "dist").is_dir()  # the wheel was built into the sandbox dir
        if step != "venv_step":
            assert (ctx.tmp / "venv").is_dir()  # interrupted with a venv there
        raise KeyboardInterrupt

    monkeypatch.setattr(check, step, interrupted)
    with pytest.raises(KeyboardInterrupt):
        verify(FIXTURES / "good_ext", temp_parent=tmp_path / "t")
    assert seen and seen[0].parent == tmp_path / "t"
    assert not seen[0].exists()
    assert _left(tmp_path / "t") == []


def test_keep_leaves_the_sandbox_for_debugging(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    r = verify(FIXTURES / "import_error", temp_parent=tmp_path / "k", keep=True)
    kept = _left(tmp_path / "k")
    assert len(kept) == 1 and (kept[0] / "venv").is_dir()
    assert any(str(kept[0]) in w for w in r.warnings)
