"""Which program runs a scenario: the caller's override, the scenario's own, the caller's fallback; and
messages that name the caller's options (``autocue run``'s, or pytest's through ``RunOptions.flags``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_helpers import scenario

from autocue.runner.launch import LaunchError, choose
from autocue.runner.options import RunOptions
from autocue.runner.pytest_plugin import PYTEST_FLAGS
from autocue.runner.selection import Selected, load_path


def load(tmp_path: Path, body: str) -> Selected:
    [sel] = load_path(scenario(tmp_path, body))
    return sel


def test_the_override_wins_the_scenarios_program_beats_the_fallback(tmp_path: Path) -> None:
    own = load(tmp_path, "name: own\nah: {cmd: python3 prog.py}\ntimeline: []\n")
    agent_key = load(tmp_path, "name: key\nagent: mock\ntimeline: []\n")
    none = load(tmp_path, "name: none\ntimeline: []\n")

    def runner(sel: Selected, **kw: str) -> str:
        return choose(sel.scenario, sel.extras, cmd=kw.get("cmd"), agent=kw.get("agent"),
                      default_cmd=kw.get("default_cmd"), default_agent=kw.get("default_agent")).runner

    assert runner(own, default_agent="mock") == "cmd" and runner(agent_key, default_cmd="true") == "mock"
    assert runner(none, default_agent="mock") == "mock" and runner(none, default_cmd="true") == "cmd"
    assert runner(own, agent="mock") == "mock" and runner(agent_key, cmd="true") == "cmd"  # the CLI's --agent / --cmd


def test_messages_name_the_callers_options(tmp_path: Path) -> None:
    none = load(tmp_path, "name: none\ntimeline: []\n")
    with pytest.raises(LaunchError) as cli:
        choose(none.scenario, none.extras, cmd=None, agent=None)
    assert "pass --agent autocue|mock|claude|... or --cmd 'COMMAND'" in str(cli.value)
    with pytest.raises(LaunchError) as under_pytest:
        choose(none.scenario, none.extras, cmd=None, agent=None, flags=PYTEST_FLAGS)
    assert "pass --autocue-agent autocue|mock|claude|... or --autocue-cmd 'COMMAND'" in str(under_pytest.value)
    with pytest.raises(LaunchError, match=r"^--autocue-cmd-override is empty"):
        choose(none.scenario, none.extras, cmd=" ", agent=None, flags=PYTEST_FLAGS)
    with pytest.raises(LaunchError, match=r"^--autocue-cmd is empty"):
        choose(none.scenario, none.extras, cmd=None, agent=None, default_cmd="", flags=PYTEST_FLAGS)
    assert choose(none.scenario, none.extras, cmd=None, agent=None, default_agent="mock",
                  flags=PYTEST_FLAGS).source == "--autocue-agent"
    assert RunOptions().flag("update_goldens") == "--update-goldens"
    assert RunOptions(flags=PYTEST_FLAGS).flag("update_goldens") == "--autocue-update-goldens"
