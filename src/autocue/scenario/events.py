"""Timeline event kinds, each registered once: its class, the YAML keys that name it, how the loader
reads it and its JSON-Schema fragment.

The loader (``loader.py``: which key names an event, ``dispatch``, the type-tagged form, bare words
such as ``- complete``), the JSON Schema (``schema.py``) and the key list ``TIMELINE_EVENTS`` all read
``KINDS``. Each interpreter of a timeline (``scenario/compile.py``, ``runner/executor.py``,
``runner/mockplan.py``, ``simulate/timeline.py``) holds one ``TIMELINE_HANDLERS`` table ``{class:
handler}`` and a ``TIMELINE_IGNORED`` table ``{class: why}``, and calls ``check_interpreter`` when it
is imported: an event class it neither handles nor ignores is an error, never a silent fall-through.

Adding an event kind: its class (``timeline.py``), an ``EventKind`` in ``KINDS`` below (or
``register(...)`` from anywhere), then a handler or an ignore reason in each of the four interpreters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from autocue.scenario.errors import Pos, TimelineKindError
from autocue.scenario.timeline import (
    AdvanceMs,
    AssertStep,
    CallEveryTool,
    Complete,
    ErrorStep,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    RunnerEvent,
    Screenshot,
    StructuredOutput,
    TimelineEvent,
    UserCommand,
    UserEdits,
    UserInputs,
)
from autocue.scenario.vocab import RESPONSE_PART_KINDS, RUNNER_EVENTS
from autocue.scenario.yamlsrc import Node, plain

if TYPE_CHECKING:
    from autocue.scenario.eventread import EventReader

Schema = dict[str, Any]
H = TypeVar("H")
Load = Callable[["EventReader", str, Node, Node], list[TimelineEvent]]
"""``(reader, key, value, item)``: the events of ``- key: value`` (``item`` is the whole list item)."""
LoadTagged = Callable[["EventReader", str, Node], list[TimelineEvent]]
"""``(reader, key, item)``: the events of ``- {type: key, ...}``."""


@dataclass(frozen=True, slots=True)
class EventKind:
    """One kind of timeline event.

    ``cls`` is the class the loader produces (None: a list of events the loader flattens, as
    ``agentActions``); ``keys`` name it in YAML; ``load`` reads ``- key: value``; ``schema`` maps each
    key an untagged item may carry to its JSON Schema (the keys, plus allowed neighbours such as
    ``target``). ``tagged`` reads ``- {type: key, ...}`` (None: ``load`` of the item without ``type``)
    and ``tagged_schema`` is that form's schema; ``bare`` builds the event of a bare word
    (``- complete``) for the keys in ``bare_keys``; ``siblings`` are keys allowed next to the key.
    """

    cls: type | None
    keys: tuple[str, ...]
    load: Load
    schema: Mapping[str, Schema] = field(default_factory=dict)
    tagged: LoadTagged | None = None
    tagged_schema: Schema | None = None
    bare_keys: tuple[str, ...] = ()
    bare: Callable[[str, Pos], TimelineEvent] | None = None
    siblings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- schema pieces

MS: Schema = {"type": "integer", "minimum": 0}


def _ref(name: str) -> Schema:
    return {"$ref": f"#/definitions/{name}"}


def _any_required(*keys: str) -> Schema:
    return {"anyOf": [{"required": [k]} for k in keys]}


USER_INPUTS: Schema = {
    "type": "array",
    "items": {
        "anyOf": [
            {"type": "array", "minItems": 2, "maxItems": 2, "items": [MS, {"type": "string"}]},
            {
                "type": "object",
                "properties": {
                    "relativeTime": MS, "timestamp": MS, "ms": MS,
                    "input": {"type": ["string", "array"]}, "text": {"type": "string"},
                    "content": {"type": "string"}, "target": {"type": "string"},
                },
                **_any_required("input", "text", "content"),
            },
        ]
    },
}

# ---------------------------------------------------------------------------- loaders


def _meta(item: Node) -> Any:
    return plain(item.v["_meta"]) if "_meta" in item else None


def _llm_response(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if key != "llmResponse":  # a response part written as an event of its own: a one-part reply
        return [LlmResponse([r.part_value(key, v)], item.pos, grouped=False, meta=_meta(item), chaos=r.chaos(item))]
    elements = r.seq(v, "a list of response elements (think, assistant, agentToolUse, ...)")
    parts = [r.part(el) for el in elements.items()]
    if not parts:
        r.warn(v.pos, v.path, "empty llmResponse: it plays as an empty reply")
    errs = [p for p in parts if isinstance(p, ErrorStep)]
    if errs and len(parts) > 1:
        r.warn(errs[0].pos, v.path, "an llmResponse with an `error` element plays as that failed call; "
               "its other elements are not sent (put them in the next llmResponse)")
    return [LlmResponse(parts, item.pos, grouped=True, meta=_meta(item), chaos=r.chaos(item))]


def _llm_response_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    if key == "llmResponse":
        r.fail(item, f"a type-tagged {key} needs its list under `{key}:`")
    return [LlmResponse([r.tagged_part(key, item)], item.pos, grouped=False)]


def _actions(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    out: list[TimelineEvent] = []
    for sub in r.seq(v, f"a list of events in {key}").items():
        r.event(sub, out)
    return out


def _actions_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.fail(item, f"a type-tagged {key} needs its list under `{key}:`")


def _user_inputs(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    ui = r.user_inputs(v, r.opt_str(item, "target"))
    ui.pos = item.pos
    return [ui]


def _user_inputs_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", "inputs", "target"), "a userInputs event")
    return [r.user_inputs(r.require(item, "inputs", what="[[ms, text], ...]"), r.opt_str(item, "target"))]


def _user_edits(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if isinstance(v.v, str):
        return [UserEdits(str(v.v), item.pos)]
    r.map_(v, "{patch: path/to/file.patch}", ("patch",), "userEdits")
    return [UserEdits(r.str_(r.require(v, "patch", what="the patch file")), item.pos)]


def _user_command(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if isinstance(v.v, str):
        return [UserCommand(str(v.v), item.pos)]
    r.map_(v, "{cmd, cwd}", ("cmd", "cwd"), "userCommand")
    return [UserCommand(r.str_(r.require(v, "cmd", what="the command to run")), item.pos, r.opt_str(v, "cwd"))]


def _advance(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    return [AdvanceMs(r.int_(v, "milliseconds (an integer)"), item.pos)]


def _advance_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", "ms", "value"), f"a {key} event")
    return [AdvanceMs(r.int_(r.require(item, "ms", "value", what="milliseconds"), "milliseconds"), item.pos)]


def _screenshot(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if v.is_map:
        return [Screenshot(r.str_(r.require(v, "name", "label", what="the screenshot label")), item.pos)]
    return [Screenshot(r.str_(v, "a screenshot label (a string)"), item.pos)]


def _screenshot_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", "name", "label"), "a screenshot event")
    return [Screenshot(r.str_(r.require(item, "name", "label", what="the screenshot label")), item.pos)]


def _assert(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    spec = r.assertion(v)
    spec.pos = item.pos
    return [AssertStep(spec, item.pos)]


def _expect_request(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    return [ExpectRequestStep(r.expect_request(v, item.pos), item.pos)]


def _flag(cls: type[Complete | Merge]) -> tuple[Load, LoadTagged]:
    def load(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
        return [cls(r.bool_(v), item.pos)]

    def tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
        x = item.get("value")
        return [cls(True if x is None else r.bool_(x), item.pos)]

    return load, tagged


def _runner_event(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if key in ("status", "log"):
        return [RunnerEvent(key, r.str_(v), item.pos)]
    return [RunnerEvent(key, plain(v.v), item.pos)]


def _runner_event_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    if key in ("status", "log"):
        return [RunnerEvent(key, r.str_(r.require(item, "text", "message", what="the text")), item.pos)]
    return _runner_event(r, key, item.without("type"), item)


def _seed(r: EventReader, m: Node) -> int | str:
    n = m.get("seed")
    if n is None or isinstance(n.v, str):
        return 0 if n is None else str(n.v)
    return r.int_(n, "a seed (an integer or a string)", minimum=None)


def _on(r: EventReader, key: str, v: Node) -> None:
    if not r.bool_(v, f"true or {{seed, ...}} for {key}"):
        r.fail(v, f"{key}: false asks for nothing: remove the event")


_EVERY_KEYS = ("seed", "then", "parallel", "outputTool", "tools")


def _every(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if not v.is_map:
        _on(r, key, v)
        return [CallEveryTool(item.pos)]
    r.map_(v, "{seed, then, parallel, outputTool, tools}", _EVERY_KEYS, "callEveryTool")
    return [_every_of(r, v, item)]


def _every_of(r: EventReader, m: Node, item: Node) -> CallEveryTool:
    par = m.get("parallel")
    ev = CallEveryTool(item.pos, _seed(r, m), r.opt_str(m, "then"), True if par is None else r.bool_(par),
                       r.opt_str(m, "outputTool"))
    if (tools := m.get("tools")) is not None:
        ev.tools = r.str_list(tools, "the names of the tools to call")
    if ev.then is not None and ev.output_tool is not None:
        r.fail(m, "callEveryTool answers with `then` text or a call of its `outputTool`, not both")
    return ev


def _every_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", *_EVERY_KEYS), "a callEveryTool event")
    return [_every_of(r, item, item)]


def _structured(r: EventReader, key: str, v: Node, item: Node) -> list[TimelineEvent]:
    if not v.is_map:
        _on(r, key, v)
        return [StructuredOutput(item.pos)]
    r.map_(v, "{seed} or {value}", ("seed", "value"), "structuredOutput")
    return [_structured_of(r, v, item)]


def _structured_of(r: EventReader, m: Node, item: Node) -> StructuredOutput:
    value = m.get("value")
    if value is not None and m.get("seed") is not None:
        r.fail(m, "structuredOutput takes a seed (a drawn value) or a value, not both")
    if value is None:
        return StructuredOutput(item.pos, _seed(r, m))
    return StructuredOutput(value.pos, value=plain(value.v), has_value=True)


def _structured_tagged(r: EventReader, key: str, item: Node) -> list[TimelineEvent]:
    r.unknown_keys(item, ("type", "seed", "value"), "a structuredOutput event")
    return [_structured_of(r, item, item)]


_SEED: Schema = {"type": ["integer", "string"]}
_EVERY_OPTIONS: Schema = {"type": "object", "properties": {"seed": _SEED, "then": {"type": "string"},
                                                            "parallel": {"type": "boolean"},
                                                            "outputTool": {"type": "string"},
                                                            "tools": {"type": "array", "items": {"type": "string"}}}}
_STRUCTURED_OPTIONS: Schema = {"type": "object", "properties": {"seed": _SEED, "value": {}}}

_complete, _complete_tagged = _flag(Complete)
_merge, _merge_tagged = _flag(Merge)
_FLAG_SCHEMA: Schema = {"type": ["boolean", "null"]}

# ---------------------------------------------------------------------------- the kinds

KINDS: list[EventKind] = [
    EventKind(
        LlmResponse,
        ("llmResponse", *(k for k in RESPONSE_PART_KINDS if k != "agentPlan")),
        _llm_response,
        # the response parts' own schemas (think, runCmd, ...) are schema.py's response-part definitions
        {"llmResponse": {"type": "array", "items": _ref("responsePart")},
         "chaos": {"type": "string", "description": "faults and latency the mock server adds to this reply"}},
        _llm_response_tagged,
        siblings=("chaos",),
    ),
    EventKind(None, ("agentActions", "userActions"), _actions,
              {"agentActions": {"type": "array", "items": _ref("event")},
               "userActions": {"type": "array", "items": _ref("event")}},
              _actions_tagged),
    EventKind(UserInputs, ("userInputs",), _user_inputs, {"userInputs": USER_INPUTS, "target": {"type": "string"}},
              _user_inputs_tagged,
              {"required": ["inputs"], "properties": {"inputs": USER_INPUTS, "target": {"type": "string"}}},
              siblings=("target",)),
    EventKind(UserEdits, ("userEdits",), _user_edits,
              {"userEdits": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["patch"],
                                                            "properties": {"patch": {"type": "string"}}}]}}),
    EventKind(UserCommand, ("userCommand",), _user_command,
              {"userCommand": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["cmd"],
                                                              "properties": {"cmd": {"type": "string"},
                                                                             "cwd": {"type": "string"}}}]}}),
    EventKind(AdvanceMs, ("advanceMs", "baseTimeDelta"), _advance, {"advanceMs": MS, "baseTimeDelta": MS},
              _advance_tagged, {"properties": {"ms": MS, "value": MS}, **_any_required("ms", "value")}),
    EventKind(Screenshot, ("screenshot",), _screenshot,
              {"screenshot": {"anyOf": [{"type": "string"},
                                        {"type": "object", "properties": {"name": {"type": "string"}}}]}},
              _screenshot_tagged,
              {"properties": {"name": {"type": "string"}, "label": {"type": "string"}},
               **_any_required("name", "label")}),
    EventKind(AssertStep, ("assert",), _assert, {"assert": _ref("assert")}, tagged_schema=_ref("assert")),
    EventKind(ExpectRequestStep, ("expectRequest",), _expect_request, {"expectRequest": _ref("expectRequest")},
              tagged_schema=_ref("expectRequest")),
    EventKind(CallEveryTool, ("callEveryTool",), _every,
              {"callEveryTool": {"anyOf": [{"type": ["boolean", "null"]}, _EVERY_OPTIONS]}}, _every_tagged,
              _EVERY_OPTIONS, bare_keys=("callEveryTool",), bare=lambda key, pos: CallEveryTool(pos)),
    EventKind(StructuredOutput, ("structuredOutput",), _structured,
              {"structuredOutput": {"anyOf": [{"type": ["boolean", "null"]}, _STRUCTURED_OPTIONS]}},
              _structured_tagged, _STRUCTURED_OPTIONS, bare_keys=("structuredOutput",),
              bare=lambda key, pos: StructuredOutput(pos)),
    EventKind(Complete, ("complete",), _complete, {"complete": _FLAG_SCHEMA}, _complete_tagged,
              bare_keys=("complete",), bare=lambda key, pos: Complete(True, pos)),
    EventKind(Merge, ("merge",), _merge, {"merge": _FLAG_SCHEMA}, _merge_tagged,
              bare_keys=("merge",), bare=lambda key, pos: Merge(True, pos)),
    EventKind(RunnerEvent, ("agentPlan", *RUNNER_EVENTS), _runner_event,
              {"agentPlan": {"type": "object"}, "status": {"type": "string"}, "log": {"type": "string"}},
              _runner_event_tagged,
              bare_keys=("sessionStart", "userCancelSession"), bare=lambda key, pos: RunnerEvent(key, None, pos)),
]
"""Every registered kind, in the order the schema and the key list name them."""

_BY_KEY: dict[str, EventKind] = {}


def _index(kind: EventKind) -> None:
    for key in kind.keys:
        if (other := _BY_KEY.get(key)) is not None and other is not kind:
            raise TimelineKindError(f"timeline event key {key!r} is registered twice "
                                    f"({_name(other.cls)} and {_name(kind.cls)})")
        _BY_KEY[key] = kind


for _k in KINDS:
    _index(_k)

TIMELINE_EVENTS: tuple[str, ...] = tuple(key for kind in KINDS for key in kind.keys)
"""The built-in keys that name a timeline event (``timeline_keys()`` adds the kinds registered later)."""


def kind_key(cls: type) -> str:
    """The first YAML key of the kind whose class is ``cls`` (its class name when no kind has it)."""
    return next((k.keys[0] for k in KINDS if k.cls is cls), cls.__name__)


def kind_keys() -> list[str]:
    """The first YAML key of every kind with a class, built-in and registered, in order."""
    return [k.keys[0] for k in KINDS if k.cls is not None]


def register(kind: EventKind) -> EventKind:
    """Add a kind (its keys must be new); ``unregister`` removes it again."""
    _index(kind)
    KINDS.append(kind)
    return kind


def unregister(kind: EventKind) -> None:
    KINDS.remove(kind)
    for key in kind.keys:
        _BY_KEY.pop(key, None)


def kind_of(key: str) -> EventKind | None:
    """The kind a YAML key names, or None."""
    return _BY_KEY.get(key)


def timeline_keys() -> tuple[str, ...]:
    """Every key that names a timeline event, in the order of ``KINDS``."""
    return tuple(_BY_KEY)


def event_classes() -> list[type]:
    """The class of every registered kind (a kind that is a list of events has none)."""
    return [k.cls for k in KINDS if k.cls is not None]


def _name(cls: type | None) -> str:
    return cls.__name__ if cls is not None else "a list of events"


def undecided(handlers: Iterable[type], ignored: Iterable[type]) -> list[type]:
    """The registered event classes neither in ``handlers`` nor in ``ignored``."""
    decided = {*handlers, *ignored}
    return [c for c in event_classes() if c not in decided]


def check_interpreter(where: str, handlers: Mapping[type, object], ignored: Mapping[type, str]) -> None:
    """Raise ``TimelineKindError`` when ``where`` neither handles nor ignores a registered event class,
    or handles one it also ignores."""
    if missing := undecided(handlers, ignored):
        names = ", ".join(c.__name__ for c in missing)
        raise TimelineKindError(f"{where}: no handler for the timeline event(s) {names}: add one to its "
                                "TIMELINE_HANDLERS, or put it in its TIMELINE_IGNORED with the reason")
    if both := [c.__name__ for c in handlers if c in ignored]:
        raise TimelineKindError(f"{where}: {', '.join(both)} both handled and ignored")


def handler(where: str, handlers: Mapping[type, H], ignored: Mapping[type, str], event: object) -> H | None:
    """``event``'s handler in an interpreter's table; None when the interpreter ignores it. An event
    class it does not decide about (a kind registered after the interpreter was imported) raises."""
    found = handlers.get(type(event))
    if found is None and type(event) not in ignored:
        raise TimelineKindError(f"{where}: no handler for the timeline event {type(event).__name__}: add one to its "
                                "TIMELINE_HANDLERS, or put it in its TIMELINE_IGNORED with the reason")
    return found


__all__ = [
    "KINDS", "TIMELINE_EVENTS", "EventKind", "check_interpreter", "event_classes", "handler", "kind_of", "register",
    "timeline_keys", "undecided", "unregister",
]
