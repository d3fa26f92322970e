"""The mock agent reports a reply done only once all it prints before it next waits is written.

The executor types the moment it reads ``{"done": N}`` (its quiet window for ``--agent mock`` is
2 ms), so the ``> `` prompt, or the agent's last words, must already be on the terminal then:
else the input's echo could land before the prompt and the screen would differ from run to run.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import one, scenario

from autocue.runner.mockagent import MockAgent

PLAN: dict[str, Any] = {"name": "progress", "prompt": "go", "pos": "s.yaml:1:1", "events": [
    {"reply": [{"text": "first"}]},
    {"reply": [{"text": "second, at once"}]},
    {"inputs": 1},
    {"reply": [{"text": "third"}]},
    {"inputs": 2},
    {"reply": [{"text": "last"}]},
]}


class Recording(MockAgent):
    """Notes the terminal output at each progress report."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[tuple[dict[str, Any], str]] = []

    def _report(self, msg: dict[str, Any]) -> None:
        assert isinstance(self.out, io.StringIO)
        self.seen.append((msg, self.out.getvalue()))
        super()._report(msg)


def test_done_comes_after_the_prompt_and_after_the_end(tmp_path: Path) -> None:
    out = io.StringIO()
    lines = iter(["a\n", "b\n", "c\n"])
    agent = Recording(PLAN, tmp_path, out, lambda: next(lines), "text", None, tmp_path / "progress.jsonl")
    assert agent.run() == 0
    done = [(m["done"], text) for m, text in agent.seen]
    assert [n for n, _ in done] == [1, 2, 3, 4]
    assert done[0][1].endswith("first\n")  # the second reply follows at once: nothing to wait for
    assert done[1][1].endswith("second, at once\n> ")
    assert done[2][1].endswith("third\n> ")
    assert done[3][1] == out.getvalue()  # the last one: after all it printed
    assert (tmp_path / "progress.jsonl").read_text().splitlines() == [f'{{"done": {n}}}' for n in (1, 2, 3, 4)]


def test_the_executor_types_as_soon_as_the_mock_agent_reports_a_reply(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The mock agent's output comes before its report: the executor must not then await an answer
    to the reply (it would wait out ``ANSWER_GRACE`` whenever it read the output before the report)."""
    from autocue.runner import executor

    monkeypatch.setattr(executor, "ANSWER_GRACE", 60.0)  # waiting it out once turns the run into a timeout
    timeline = "".join(f'  - llmResponse:\n      - assistant: [[0, "reply {n}"]]\n  - userInputs: [[0, "input {n}"]]\n'
                       for n in range(10))
    path = scenario(tmp_path, f"""\
name: quick_turns
agent: mock
initialPrompt: go
timeline:
{timeline}  - llmResponse:
      - assistant: [[0, "done"]]
expect: {{exitCode: 0}}
""")
    r = one(path, timeout=20)
    assert r.passed, [f.line() for f in r.failures]
    assert "reply 9" in r.last_screen and "done" in r.last_screen
