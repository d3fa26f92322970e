"""A well-formed package: what loads, expectations, smoke playbooks, check=True, JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from autocue.sandbox.check import SandboxResult, SandboxVerificationError
from autocue.sandbox.problems import ProblemKind
from autocue.sandbox.smoke import SmokeSpecError
from autocue.testing import CANCEL, call, say, verify_sandbox_install, when

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "good_ext"

pytestmark = pytest.mark.slow


def test_good_package_loads_tool_and_packaged_skill(verify: Callable[..., SandboxResult]) -> None:
    r = verify(GOOD, expect={"extensions": 1, "tools": ["greet"], "skills": ["greeting"]}, smoke={
        "script": [when("Greet Ada", [call("greet", {"name": "Ada"}), say("Done.")])],
    })
    assert r.ok, r.report()
    assert (r.package, r.version, r.installer) == ("autocue-fixture-good", "1.0.0", "uv")
    assert r.loaded.extensions == 1 and r.loaded.extension_errors == []
    assert r.loaded.tools == ["greet"] and r.loaded.skills == ["greeting"]
    assert r.loaded.entry_points == [{"name": "greeter", "value": "good_ext", "dist": "autocue-fixture-good"}]
    assert r.loaded.by_extension[0]["entry_point"] == "greeter = 'good_ext'"
    assert r.smoke is not None and r.smoke.passed
    res = r.smoke.events.tool_results_for("greet")
    assert [(x.text, x.is_error, x.mocked, x.turn, x.step) for x in res] == [("Hello, Ada!", False, False, 1, 1)]
    assert r.smoke.events.tool_calls_for("greet")[0].input == {"name": "Ada"}
    assert r.smoke.events.tool_sequence() == ["greet"]
    assert r.smoke.events.blocked_calls() == []
    assert [e.type for e in r.smoke.events.of_type("tool_execution_end")] == ["tool_execution_end"]
    assert r.smoke.events.of_type("tool_execution_end")[0].tool_name == "greet"
    assert r.smoke.events.messages[-1].content[0].text == "Done."
    assert "greet" in r.smoke.transcript
    assert set(r.timings) == {"build", "autocue_wheel", "wheelhouse", "venv", "install", "load", "total"}
    assert "PASSED" in r.report()


def test_check_true_raises_with_the_report(sandbox_cache: Path, tmp_path: Path) -> None:
    with pytest.raises(SandboxVerificationError) as info:
        verify_sandbox_install(GOOD, expect={"tools": ["wave"]}, cache_dir=sandbox_cache, temp_parent=tmp_path)
    assert isinstance(info.value, AssertionError)
    assert 'Expected tool "wave" not found. Available: greet' in str(info.value)
    assert info.value.result.problems_of("expectation")[0].data == {"tool": "wave"}


def test_smoke_failure_is_reported_with_events(verify: Callable[..., SandboxResult]) -> None:
    r = verify(GOOD, smoke={
        "mock_tools": {"bash": "ok"},
        "mock_ui": {"confirm": CANCEL},
        "script": [when("Greet", [call("greet", {"name": "Bo"}), call("wave", {}), say("Hi.")])],
    })
    assert [p.kind for p in r.problems] == [ProblemKind.SMOKE_FAILED]
    assert r.smoke is not None and not r.smoke.passed
    assert r.smoke.error is not None and 'called tool "wave"' in r.smoke.error
    assert "Known tools:" in r.smoke.error and "greet" in r.smoke.error
    assert r.smoke.events.tool_sequence() == ["greet", "wave"]
    assert r.smoke.events.tool_results_for("wave")[0].is_error is True
    assert "[smoke_failed]" in r.report()


def test_smoke_from_yaml_file(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    smoke = tmp_path / "smoke.yaml"
    smoke.write_text(
        "mock_tools:\n  bash: ok\n"
        "script:\n"
        "  - when: Greet twice\n"
        "    do:\n"
        "      - parallel:\n"
        "          - {call: greet, params: {name: A}}\n"
        "          - {call: greet, params: {name: B}}\n"
        "      - say: Both greeted.\n",
        encoding="utf-8",
    )
    r = verify(GOOD, smoke=smoke)
    assert r.ok, r.report()
    assert r.smoke is not None
    assert sorted(x.text for x in r.smoke.events.tool_results_for("greet")) == ["Hello, A!", "Hello, B!"]


def test_bad_smoke_is_refused_before_building(tmp_path: Path) -> None:
    with pytest.raises(SmokeSpecError, match=r"turn 1 \(when \"Greet\"\), action 1: call\('greet', <late-bound>\)"):
        verify_sandbox_install(GOOD, smoke={"script": [when("Greet", [call("greet", lambda: {"name": "x"})])]},
                               temp_parent=tmp_path / "t")
    assert not (tmp_path / "t").exists()  # refused before anything was created


def test_json_report_round_trips(verify: Callable[..., SandboxResult]) -> None:
    r = verify(GOOD, expect={"tools": ["nope"]}, smoke={"script": [when("x", [call("greet", {"name": "J"}),
                                                                              say("ok")])]})
    data = json.loads(json.dumps(r.to_json()))
    assert data["ok"] is False
    assert data["loaded"]["tools"] == ["greet"]
    assert data["problems"][0]["kind"] == "expectation"
    assert data["smoke"]["tool_sequence"] == ["greet"]
    assert data["smoke"]["events"]["tool_results"][0]["text"] == "Hello, J!"
