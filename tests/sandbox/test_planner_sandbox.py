"""examples/planner as a user installs it: built, installed offline into a fresh venv, loaded
through its autocue.extensions entry point, and smoke-tested there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from autocue.sandbox.check import SandboxResult
from autocue.testing import call, say, when

PLANNER = Path(__file__).resolve().parents[2] / "examples" / "planner"
TOOLS = ["plan_mode", "plan_propose", "plan_list", "plan_get", "plan_approve", "plan_reject"]
SMOKE = {
    "mock_tools": {"bash": "ok", "read": "ok", "write": "ok"},
    "mock_ui": {"confirm": True},
    "script": [
        when("List plans", [call("plan_list", {}), say("No plans found.")]),
        when("Plan mode on, then try bash", [
            call("plan_mode", {"enable": True}), call("bash", {"command": "rm -rf build"}), say("Blocked."),
        ]),
    ],
}

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_planner_installs_and_loads(verify: Callable[..., SandboxResult], installer: str) -> None:
    r = verify(PLANNER, expect={"extensions": 1, "tools": TOOLS}, smoke=SMOKE, installer=installer)
    assert r.ok, r.report()
    assert r.installer == installer
    assert (r.package, r.wheel) == ("autocue-planner", "autocue_planner-0.1.0-py3-none-any.whl")
    assert r.loaded.extensions == 1
    assert r.loaded.extension_errors == []
    assert sorted(r.loaded.tools) == sorted(TOOLS)
    assert r.loaded.by_extension[0]["commands"] == ["plan"]
    assert r.smoke is not None
    events = r.smoke.events
    assert events.tool_results_for("plan_list")[0].is_error is False
    assert events.tool_results_for("plan_list")[0].text == "No plans."
    blocked = events.blocked_calls()
    assert [c.tool_name for c in blocked] == ["bash"]
    assert "Plan mode" in (blocked[0].block_reason or "")
    assert events.ui_calls_for("set_status")[0].args == ["planner", "plan mode"]
    assert events.tool_sequence() == ["plan_list", "plan_mode", "bash"]
