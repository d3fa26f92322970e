"""A toy timeline event kind in one file: ``- beep: TEXT`` (or ``{type: beep, text: TEXT}``, or the bare
word ``- beep``). Registering it is all the scenario side needs; each interpreter must then decide."""

from __future__ import annotations

from dataclasses import dataclass

from autocue.scenario import Pos
from autocue.scenario.eventread import EventReader
from autocue.scenario.events import EventKind
from autocue.scenario.timeline import TimelineEvent
from autocue.scenario.yamlsrc import Node


@dataclass(slots=True)
class Beep:
    text: str
    pos: Pos


def _load(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    return [Beep(r.str_(v, "the beep's text (a string)"), item.pos)]


def _tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", "text"), "a beep event")
    return _load(r, key, r.require(item, "text", what="the beep's text"), item)


BEEP = EventKind(
    Beep, ("beep",), _load, {"beep": {"type": "string"}}, _tagged,
    {"required": ["text"], "properties": {"text": {"type": "string"}}},
    bare_keys=("beep",), bare=lambda key, pos: Beep("", pos),
)
