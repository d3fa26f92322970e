"""The mock agent reports a reply done only once all it prints before it next waits is written.

The executor types the moment it reads ``{"done": N}`` (its quiet window for ``--agent mock`` is
2 ms), so the ``> `` prompt, or the agent's last words, must already be on the terminal then:
else the input's echo could land before the prompt and the screen would differ from run to run.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

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
