"""The runner's typed handle on the mock server: served count, last-served time (monotonic), remaining,
errors, close; a second live run of a name gets ``--2``."""

from __future__ import annotations

import time

import httpx2

from autocue.mockllm.server import MockLLMServer
from autocue.mockllm.state import MockState
from autocue.scenario import load_scenario_text

TEXT = """\
name: h
timeline:
  - llmResponse:
      - assistant: [[0, one]]
  - llmResponse:
      - assistant: [[0, two]]
"""


def _ask(server: MockLLMServer, key: str, name: str) -> str:
    r = httpx2.post(server.url_for(session=key, scenario=name, openai=True) + "/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                    headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert r.status_code == 200, r.text
    return str(r.json()["choices"][0]["message"]["content"])


def test_a_run_handle_reports_what_was_served_and_closes() -> None:
    script = load_scenario_text(TEXT, "h.yaml").compile()
    with MockLLMServer() as server:
        state: MockState = server.state
        run = state.open_run("h", script)
        second = state.open_run("h", script)
        assert (run.name, run.key, second.name) == ("h", "run-h", "h--2")
        assert (run.started, run.served, run.remaining, run.total, run.last_served_at) == (False, 0, 2, 2, None)
        before = time.monotonic()
        assert _ask(server, run.key, run.name) == "one"
        at = run.last_served_at
        assert at is not None and before <= at <= time.monotonic()
        assert (run.started, run.served, run.remaining, run.next_step, run.errors) == (True, 1, 1, 'say("two")', [])
        assert second.served == 0  # runs never share a cursor
        run.close()
        assert (run.started, run.served) == (False, 0)
        assert "h" not in state.playables and "h--2" in state.playables
        second.close()


def test_a_launch_profile_run_starts_with_its_tool_profile() -> None:
    script = load_scenario_text(TEXT, "h.yaml").compile()
    state = MockState()
    run = state.open_run("p", script, profile="claude-code")
    st = run.status()
    assert run.started and st is not None and (st["profile"], st["profile_source"]) == ("claude-code",
                                                                                        "launch profile")
    run.close()
    assert run.status() is None
