"""Timeline events are defined once (``autocue.scenario.events.KINDS``) and every interpreter decides.

Each interpreter of a timeline holds ``TIMELINE_HANDLERS`` ``{class: handler}`` and ``TIMELINE_IGNORED``
``{class: why}``; together they name every registered event class, once. A toy kind added in one file
(``tests/_support/toy_event.py``) loads from YAML with ``file:line`` errors, appears in the JSON Schema,
and every interpreter is then forced to decide about it (at its import check and when it meets one).
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Iterator

import jsonschema
import pytest
from toy_event import BEEP, Beep

import autocue.scenario
from autocue.scenario import ScenarioError, TimelineKindError, load_scenario_text, scenario_json_schema
from autocue.scenario.events import KINDS, TIMELINE_EVENTS, check_interpreter, event_classes, register, unregister
from autocue.scenario.timeline import TimelineEvent

INTERPRETERS = ("autocue.scenario.compile", "autocue.runner.executor", "autocue.runner.mockplan",
                "autocue.simulate.timeline")


def _tables(module: str) -> tuple[dict[type, object], dict[type, str]]:
    m = importlib.import_module(module)
    return m.TIMELINE_HANDLERS, m.TIMELINE_IGNORED


@pytest.mark.parametrize("module", INTERPRETERS)
def test_every_interpreter_handles_or_ignores_every_event_once(module: str) -> None:
    handlers, ignored = _tables(module)
    assert set(handlers) | set(ignored) == set(event_classes()), module
    assert not set(handlers) & set(ignored), module
    assert all(isinstance(why, str) and why.strip() for why in ignored.values()), "say why an event is ignored"
    check_interpreter(module, handlers, ignored)


def test_an_interpreter_that_skips_an_event_fails() -> None:
    handlers, ignored = _tables("autocue.simulate.timeline")
    skipped = {k: v for k, v in handlers.items() if k.__name__ != "Screenshot"}
    with pytest.raises(TimelineKindError, match=r"no handler for the timeline event.*Screenshot"):
        check_interpreter("simulate", skipped, ignored)


def test_the_registry_is_the_single_source() -> None:
    classes = event_classes()
    assert len(classes) == len(set(classes))
    assert set(typing.get_args(TimelineEvent)) == set(classes)  # the typing alias equals the registry
    assert tuple(k for kind in KINDS for k in kind.keys) == TIMELINE_EVENTS
    assert {c.__name__ for c in classes} <= set(autocue.scenario.__all__)
    event = scenario_json_schema()["definitions"]["event"]
    props = event["anyOf"][1]["else"]["properties"]
    assert all(set(kind.schema) <= set(props) for kind in KINDS)


@pytest.fixture
def beep() -> Iterator[None]:
    register(BEEP)
    try:
        yield
    finally:
        unregister(BEEP)


YAML = """\
name: toy
timeline:
  - beep: hello
  - {type: beep, text: tagged}
  - beep
  - llmResponse:
      - assistant: [[0, hi]]
"""


@pytest.mark.usefixtures("beep")
def test_a_toy_event_in_one_file_loads_validates_and_forces_every_interpreter() -> None:
    sc = load_scenario_text(YAML, "toy.yaml")
    beeps = [e for e in sc.timeline if isinstance(e, Beep)]
    assert [(b.text, b.pos.line) for b in beeps] == [("hello", 3), ("tagged", 4), ("", 5)]
    with pytest.raises(ScenarioError, match=r"^toy\.yaml:3:\d+: .*the beep's text \(a string\)"):
        load_scenario_text("name: t\ntimeline:\n  - beep: [1, 2]\n", "toy.yaml")
    with pytest.raises(ScenarioError, match=r"^toy\.yaml:3:\d+: .*did you mean `beep`"):
        load_scenario_text("name: t\ntimeline:\n  - {type: beeep, text: x}\n", "toy.yaml")

    schema = scenario_json_schema()
    validator = jsonschema.Draft7Validator(schema)
    assert "beep" in schema["definitions"]["event"]["anyOf"][1]["else"]["properties"]
    assert "beep" in schema["definitions"]["event"]["anyOf"][0]["enum"]
    assert not list(validator.iter_errors({"name": "t", "timeline": [{"beep": "x"}, {"type": "beep", "text": "y"}]}))
    assert list(validator.iter_errors({"name": "t", "timeline": [{"beep": 3}]}))
    assert list(validator.iter_errors({"name": "t", "timeline": [{"type": "beep"}]}))

    for module in INTERPRETERS:
        handlers, ignored = _tables(module)
        with pytest.raises(TimelineKindError, match=rf"{module}: no handler for the timeline event.*Beep"):
            check_interpreter(module, handlers, ignored)
    # and an interpreter that meets one says so instead of passing over it
    from autocue.runner.mockplan import plan_from_scenario
    from autocue.scenario import compile_scenario
    from autocue.simulate.timeline import scenario_events

    for play in (compile_scenario, plan_from_scenario, scenario_events):
        with pytest.raises(TimelineKindError, match="no handler for the timeline event Beep"):
            play(sc)


def test_a_key_registered_twice_fails() -> None:
    from autocue.scenario.events import EventKind

    with pytest.raises(TimelineKindError, match="'advanceMs' is registered twice"):
        register(EventKind(Beep, ("advanceMs",), BEEP.load))
    assert "advanceMs" in TIMELINE_EVENTS
