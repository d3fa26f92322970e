"""Test sessions and ``run_scenario`` have all seven built-ins: grep, find and ls run for real too."""

from __future__ import annotations

from pathlib import Path

from all_tools_scenario import SCENARIO

from autocue.testing import call, create_test_session, say, when
from autocue.testing.scenario_runner import run_scenario
from autocue.tools import BUILTIN_TOOL_NAMES


def test_a_test_session_runs_grep_find_and_ls_for_real() -> None:
    with create_test_session() as t:
        (t.cwd / "pkg").mkdir()
        (t.cwd / "pkg" / "mod.py").write_text("needle = 1\n")
        t.run_sync(when("Search", [
            call("ls", {"path": "pkg"}),
            call("grep", {"pattern": "needle"}),
            call("find", {"pattern": "*.py"}),
            say("Done."),
        ]))
        assert sorted(t.session.get_active_tool_names()) == sorted([*BUILTIN_TOOL_NAMES, "task"])
        ls, = t.events.tool_results_for("ls")
        grep, = t.events.tool_results_for("grep")
        find, = t.events.tool_results_for("find")
        assert not ls.is_error and ls.mocked is False and ls.text.strip() == "mod.py"
        assert not grep.is_error and "pkg/mod.py:1: needle = 1" in grep.text
        assert not find.is_error and find.text.strip() == "pkg/mod.py"


def test_a_scenario_listdir_grep_and_find_run_in_process(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    run = run_scenario(f)
    assert run.passed
    names = run.events.tool_sequence()
    assert names == ["ls", "grep", "find"], names
    for name in names:
        r, = run.events.tool_results_for(name)
        assert not r.is_error, (name, r.text)
    run.session.dispose()
