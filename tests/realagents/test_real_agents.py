"""Each real-agent recipe of docs/mock-server.md, run literally against ``autocue serve``.

A test runs when its CLI is installed (``bash scripts/real-agents.sh`` puts the pinned
versions in ``.agents/``; ``AUTOCUE_AGENTS_DIR`` points elsewhere) and is skipped otherwise,
with the reason naming the CLI and the script. The agent gets a scenario that writes
``hello.txt`` (and, with tools, checks it with an ``assert`` step before the last reply);
the test asserts the file exists and the server session consumed every step without errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from realagent_recipes import AGENTS, PAGE, Agent, autocue_serve, find_cli, recipe, run_recipe, skip_reason
from realagent_recipes import write_scenario as write_scenario_file


def test_every_agent_has_exactly_one_recipe_on_the_page() -> None:
    for agent in AGENTS:
        line, code = recipe(agent)
        assert "$KEY" in code and "$PORT" in code, f"{PAGE.name}:{line}: {agent.name} must use $PORT and $KEY"


def test_missing_cli_is_skipped_with_the_cli_and_the_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    agent = Agent("codex", "codex", "npm @openai/codex")
    assert find_cli(agent) is None
    reason = skip_reason(agent)
    assert "codex (npm @openai/codex)" in reason and "bash scripts/real-agents.sh" in reason
    assert str(tmp_path / "bin") in reason


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_recipe_writes_the_file_and_plays_the_whole_scenario(agent: Agent, tmp_path: Path) -> None:
    if find_cli(agent) is None:
        pytest.skip(skip_reason(agent))
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    scenario = tmp_path / "scenario.yaml"
    write_scenario_file(scenario, work, agent)
    with autocue_serve(scenario, work) as served:
        run = run_recipe(agent, served, home, work)
        tail = run.output[-3000:]
        assert run.returncode == 0, f"{agent.name} exited {run.returncode} after {run.seconds:.1f} s:\n{tail}"
        status = served.session(run.key)
    assert (work / "hello.txt").read_text() == f"hello from {agent.name}\n", tail
    assert status["errors"] == [], status["errors"]
    assert (status["consumed"], status["remaining"]) == (status["total"], 0), status
    assert all(a["passed"] for a in status["assertions"]), status["assertions"]
    if agent.name == "codex":  # its recipe lets it use the Responses WebSocket: no turn fell back to HTTP
        assert {e["transport"] for e in status["journal"]} == {"websocket"}, status["journal"]
    print(f"{agent.name}: {run.seconds:.2f} s, {status['requests']} requests, profile {status['profile']}")


CODEX_BUILTIN = """mkdir -p "$HOME/.codex"
CODEX_HOME=$HOME/.codex codex exec --skip-git-repo-check --sandbox workspace-write \\
  -c openai_base_url=http://127.0.0.1:$PORT/s/$KEY/v1 \\
  -c analytics.enabled=false -c check_for_update_on_startup=false "create hello.txt" </dev/null
"""


@pytest.mark.slow
def test_codex_builtin_provider_speaks_websocket_and_sends_the_lite_request(tmp_path: Path) -> None:
    """No ``-c model``: Codex's built-in provider opens the Responses WebSocket (on the ``/s/KEY``
    prefixed path; when it was refused, 426 made it fall back at once, 404 took 6.5-7.4 s) and sends
    the Responses "lite" request over it, from which the codex profile is detected."""
    agent = next(a for a in AGENTS if a.name == "codex")
    if find_cli(agent) is None:
        pytest.skip(skip_reason(agent))
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    scenario = tmp_path / "scenario.yaml"
    write_scenario_file(scenario, work, agent)
    with autocue_serve(scenario, work) as served:
        run = run_recipe(agent, served, home, work, code=CODEX_BUILTIN)
        assert run.returncode == 0, run.output[-3000:]
        status = served.session(run.key)
    assert (work / "hello.txt").read_text() == "hello from codex\n"
    assert (status["profile"], status["profile_source"]) == ("codex", "detected (Codex lite request)")
    assert (status["remaining"], status["errors"], status["warnings"]) == (0, [], [])
    assert {e["transport"] for e in status["journal"]} == {"websocket"}, status["journal"]
    assert run.seconds < 5, f"codex took {run.seconds:.1f} s: did it retry the WebSocket?\n{run.output[-2000:]}"
