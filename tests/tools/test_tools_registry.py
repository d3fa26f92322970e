"""``TOOL_FACTORIES``: every built-in tool, each module imported only when its factory is asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autocue.tools import BUILTIN_TOOL_NAMES, TOOL_FACTORIES


def test_every_built_in_tool_has_a_factory_that_builds_it(tmp_path: Path) -> None:
    assert tuple(TOOL_FACTORIES) == BUILTIN_TOOL_NAMES and len(TOOL_FACTORIES) == 7
    assert [TOOL_FACTORIES[name](tmp_path).name for name in BUILTIN_TOOL_NAMES] == list(BUILTIN_TOOL_NAMES)
    assert "task" not in TOOL_FACTORIES and TOOL_FACTORIES.get("task") is None
    with pytest.raises(KeyError):
        TOOL_FACTORIES["task"]


def test_asking_for_one_factory_imports_only_its_module() -> None:
    code = ("import sys\nfrom autocue.tools.registry import TOOL_FACTORIES\nTOOL_FACTORIES['read']('.')\n"
            "print(' '.join(m for m in sys.modules if m.startswith(('autocue.tools.', 'autocue.agent.'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert "autocue.tools.read" in loaded
    assert not loaded & {"autocue.tools.bash", "autocue.tools.grep", "autocue.tools.edit", "autocue.agent.loop"}
