"""Every failure class, each caught with a deliberately broken fixture package."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from autocue.sandbox.check import SandboxResult
from autocue.sandbox.problems import ProblemKind

FIXTURES = Path(__file__).parent / "fixtures"

pytestmark = pytest.mark.slow


def _only(result: SandboxResult, kind: ProblemKind) -> None:
    assert not result.ok
    assert {p.kind for p in result.problems} == {kind}, result.report()
    for p in result.problems:
        assert p.message and p.explanation and p.fix, p


def test_module_missing_from_wheel(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "missing_module")
    _only(r, ProblemKind.MODULE_MISSING_FROM_WHEEL)
    p = r.problems[0]
    assert "module mm_ext.helpers is not in the installed package" in p.message
    assert "source tree at mm_ext/helpers.py" in p.message
    assert "mm_ext/__init__.py:5" in p.message  # where the import is
    assert "[tool.hatch.build.targets.wheel]" in p.fix
    assert p.data == {"module": "mm_ext.helpers", "source": "mm_ext/helpers.py"}
    assert r.loaded.extensions == 0
    assert r.loaded.extension_errors and "mm_ext" in r.loaded.extension_errors[0]


def test_broken_entry_points(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "broken_entry_point")
    _only(r, ProblemKind.BROKEN_ENTRY_POINT)
    by_ext = {p.extension: p for p in r.problems}
    attr = by_ext["bad_attr = 'bep_ext:extensoin'"]
    assert "module bep_ext has no attribute 'extensoin'" in attr.message
    assert "Callables in the module: extension" in attr.fix
    mod = by_ext["bad_module = 'bep_ext_renamed'"]
    assert "module bep_ext_renamed does not exist" in mod.message
    assert "Top-level names in the wheel: bep_ext" in mod.fix
    assert [e["name"] for e in r.loaded.entry_points] == ["bad_attr", "bad_module"]


def test_missing_dependency_fails_fast_offline(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "missing_dependency")
    _only(r, ProblemKind.MISSING_DEPENDENCY)
    p = r.problems[0]
    assert p.data["missing"] == ["autocue-no-such-dependency-xyz"]
    assert "autocue-no-such-dependency-xyz not available" in p.message
    assert "not installed in the running environment" in p.explanation
    assert "--no-index" in p.details  # the installer never looked at an index
    assert "load" not in r.timings  # nothing was loaded


def test_missing_dependency_with_pip(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "missing_dependency", installer="pip")
    assert r.installer == "pip"
    _only(r, ProblemKind.MISSING_DEPENDENCY)
    assert r.problems[0].data["missing"] == ["autocue-no-such-dependency-xyz"]


def test_import_error_at_load(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "import_error")
    _only(r, ProblemKind.IMPORT_ERROR)
    p = r.problems[0]
    assert "importing ie_ext raised FileNotFoundError" in p.message
    assert "ie_ext/__init__.py:6" in p.message
    assert "Traceback" in p.details


def test_undeclared_dependency(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "undeclared_dependency")
    _only(r, ProblemKind.UNDECLARED_DEPENDENCY)
    p = r.problems[0]
    assert "no module named 'hypothesis'" in p.message
    assert "comes from: hypothesis" in p.fix
    assert p.data["distributions"] == ["hypothesis"]


def test_tool_registration_failures(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "tool_registration")
    _only(r, ProblemKind.TOOL_REGISTRATION)
    messages = [p.message for p in r.problems]
    assert any("api.register_tool failed" in m and "*args/**kwargs cannot be tool parameters" in m
               and "tr_ext/__init__.py:13" in m for m in messages), messages
    assert any("tool 'list plans': the name is not valid for model APIs" in m for m in messages)
    assert any("tool 'list plans': its parameters are not a valid JSON Schema" in m for m in messages)
    # The extension that raised did not load; the one with the bad tool did (and is reported).
    assert r.loaded.extensions == 1
    assert r.loaded.tools == ["list plans"]


def test_extension_error(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "extension_error")
    _only(r, ProblemKind.EXTENSION_ERROR)
    assert "ExtensionRuntimeError" in r.problems[0].message
    assert "ee_ext/__init__.py:5 in extension" in r.problems[0].message


def test_no_entry_points(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "no_entry_points")
    _only(r, ProblemKind.NO_ENTRY_POINTS)
    assert '[project.entry-points."autocue.extensions"]' in r.problems[0].fix


def test_build_failure(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "build_fails")
    _only(r, ProblemKind.BUILD_FAILED)
    assert "building the wheel of" in r.problems[0].message
    assert "`tool.hatch.build.targets.wheel.packages` must be an array of strings" in r.problems[0].message
    assert set(r.timings) == {"build", "total"}


def test_not_a_package(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    r = verify(tmp_path / "empty")
    _only(r, ProblemKind.NOT_A_PACKAGE)
    assert "has no pyproject.toml" in r.problems[0].message


def test_wrong_expectation(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "good_ext", expect={"extensions": 2, "tools": ["greet", "wave"], "skills": ["farewell"]})
    _only(r, ProblemKind.EXPECTATION)
    messages = [p.message for p in r.problems]
    assert messages == [
        "Expected 2 extension(s), got 1",
        'Expected tool "wave" not found. Available: greet',
        'Expected skill "farewell" not found. Available: greeting',
    ]
    assert "greeter = 'good_ext' (autocue-fixture-good)" in r.problems[0].explanation
    report = r.report()
    assert "FAILED (3 problems)" in report and "[expectation]" in report


def test_skill_files_missing_from_wheel(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "skill_missing", expect={"skills": 1})
    assert [p.kind for p in r.problems] == [ProblemKind.SKILL_ERROR, ProblemKind.EXPECTATION], r.report()
    assert "announces the skill path" in r.problems[0].message
    assert r.problems[0].message.endswith("sk_ext/skills, which does not exist in the installed package")
    assert r.problems[1].message == "Expected 1 skill(s), got 0"
    assert r.loaded.extensions == 1 and r.loaded.skills == []


def test_checker_crash_is_a_sandbox_error(verify: Callable[..., SandboxResult]) -> None:
    r = verify(FIXTURES / "exits_at_import")
    _only(r, ProblemKind.SANDBOX_ERROR)
    assert "exited with 3 without a report" in r.problems[0].message
    assert "ex_ext: giving up" in r.problems[0].details


def test_bad_interpreter_is_a_venv_failure(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    r = verify(FIXTURES / "good_ext", python=str(tmp_path / "no-such-python"))
    _only(r, ProblemKind.VENV_FAILED)
    assert "no-such-python" in r.problems[0].message


def test_find_links_supplies_a_dependency_offline(verify: Callable[..., SandboxResult], tmp_path: Path) -> None:
    """The documented remedy for missing_dependency: a directory of wheels."""
    from autocue.sandbox.commands import clean_env, find_uv
    from autocue.sandbox.wheels import build_package_wheel

    dep = tmp_path / "dep"
    (dep / "no_such_dep").mkdir(parents=True)
    (dep / "no_such_dep" / "__init__.py").write_text("")
    (dep / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling>=1.24"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "autocue-no-such-dependency-xyz"\nversion = "1.2.0"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["no_such_dep"]\n'
    )
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_package_wheel(dep, wheels, uv=find_uv(), offline=True, env=clean_env(), timeout=120)
    r = verify(FIXTURES / "missing_dependency", find_links=[wheels], expect={"extensions": 1})
    assert r.ok, r.report()
