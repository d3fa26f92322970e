"""Compiled steps carry the scenario's position as a ``Pos`` (an int line), and ``source`` renders it."""

from __future__ import annotations

from autocue.runner.executor import replies_before
from autocue.runner.launch import Choice
from autocue.scenario import load_scenario_text
from autocue.script.model import ScriptedResponse

TEXT = """\
name: p
timeline:
  - llmResponse:
      - assistant: [[0, one]]
  - userInputs: [[0, next]]
  - assert: {text: {contains: one}}
  - llmResponse:
      - assistant: [[0, two]]
  - screenshot: end
"""


def test_steps_turns_and_checks_carry_integer_lines() -> None:
    script = load_scenario_text(TEXT, "p.yaml").compile()
    steps = [s for s in script.all_steps() if isinstance(s, ScriptedResponse)]
    assert [(s.pos.file, s.pos.line) for s in steps if s.pos] == [("p.yaml", 3), ("p.yaml", 7)]
    assert [s.source for s in steps] == ["p.yaml:3", "p.yaml:7"]
    assert [t.pos.line for t in script.turns if t.pos] == [1, 5]
    assert [(c.before_step, c.pos.line if c.pos else None) for c in script.turns[1].checks] == [(0, 6)]
    assert script.pos is not None and script.source == "p.yaml:1"
    assert ScriptedResponse().source is None  # a harness step has no position


def test_replies_before_counts_the_replies_written_above_each_event() -> None:
    sc = load_scenario_text(TEXT, "p.yaml")
    choice = Choice(runner="cmd", command=["true"])  # a program the mock LLM server serves
    assert replies_before(sc, choice) == [0, 1, 1, 1, 2, 2]
