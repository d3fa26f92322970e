"""The smoke playbook's wire format, and the smoke events coming back from the sandbox.

Callables do not cross into the sandbox interpreter, so a smoke playbook travels as JSON:

    {"mock_tools": {"bash": "ok", "read": {"content": [{"type": "text", "text": "x"}]}},
     "mock_ui": {"confirm": true},
     "script": [{"when": "List plans", "do": [{"call": "plan_list", "params": {}}, {"say": "No plans."}]}]}

Actions: ``{"call": name, "params": {...}, "id": ...}``, ``{"say": text}``, ``{"think": text}``,
``{"parallel": [actions]}``, ``{"fail": message, "kind": ..., "status": ..., "retry_after": ...}``;
each may carry ``"usage": {"input": n, "output": n, ...}``. A ``CANCEL`` answer is ``{"$cancel": true}``.

* ``smoke_to_wire(smoke)``: a ``{"mock_tools", "mock_ui", "script": [when(...)...]}`` dict (turns as
  DSL objects or already in wire form) → the wire dict; late-bound params, ``.then`` callbacks and
  callable mocks are refused with the turn and action named.
* ``load_smoke_file(path)``: a ``.yaml``/``.yml``/``.json`` file in the wire format, or a ``.py`` file
  defining ``smoke = {...}`` (DSL allowed) → the wire dict.
* ``wire_to_turns(script)``: the wire script → ``TurnSpec``s (used inside the sandbox).
* ``events_to_json(events)`` / ``events_from_json(data)``: a ``TestEvents`` through JSON; the copy
  has the same query helpers (``tool_results_for``, ``tool_calls_for``, ``blocked_calls``, ...).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from autocue.casing import to_camel
from autocue.extensions.ui import CANCELLED
from autocue.llm.types import Usage, content_from_json, message_from_json
from autocue.sandbox.errors import SmokeSpecError as SmokeSpecError
from autocue.testing import dsl
from autocue.testing.events import TestEvents
from autocue.testing.records import HarnessWarning, ToolCallRecord, ToolResultRecord, UICallRecord
from autocue.yamlpos import YamlError, parse_document

SMOKE_KEYS = ("mock_tools", "mock_ui", "script", "has_ui", "propagate_errors")
_UI_KEYS = ("confirm", "select", "input", "editor")
_CANCEL_JSON = {"$cancel": True}


# ---------------------------------------------------------------------------- DSL -> wire


def _usage_json(u: Usage | None) -> dict[str, int] | None:
    if u is None:
        return None
    return {"input": u.input, "output": u.output, "cache_read": u.cache_read, "cache_write": u.cache_write,
            "total_tokens": u.total_tokens}


def _static_json(value: Any, where: str) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as e:
        raise SmokeSpecError(f"{where}: {e}; smoke values must be JSON data (they are sent into the sandbox)") from e


def _action_to_wire(a: dsl.Action, where: str) -> dict[str, Any]:
    out: dict[str, Any]
    if not isinstance(a, dsl.Reply):
        raise SmokeSpecError(f"{where}: unknown action {a!r}")
    first: Any = a.content[0] if a.content else None
    if a.kind == "call":
        if callable(first.arguments):
            raise SmokeSpecError(
                f"{where}: call({first.name!r}, <late-bound>) has late-bound params (a function); functions cannot "
                "cross into the sandbox interpreter. Give the params as a dict."
            )
        if a.thens:
            raise SmokeSpecError(
                f"{where}: call({first.name!r}, ...).then(...) has a callback; callbacks cannot run inside the "
                "sandbox. Drop .then() and assert on result.smoke.events.tool_results_for(...) instead."
            )
        out = {"call": first.name, "params": _static_json(first.arguments, where), **_set(id=first.id)}
    elif a.kind == "say":
        out = {"say": first.text}
        if a.stop_reason != "stop":
            out["stop_reason"] = a.stop_reason
    elif a.kind == "think":
        out = {"think": first.thinking, **_set(signature=first.thinking_signature)}
    elif a.kind == "parallel":
        out = {"parallel": [_action_to_wire(it, f"{where}, item {i + 1}") for i, it in enumerate(a.parts())]}
    elif a.error is not None:
        e = a.error
        out = {"fail": e.message, "kind": e.kind, **_set(status=e.status, retry_after=e.retry_after)}
    else:  # fail(text, "length")
        out = {"fail": first.text, "kind": "length"}
    return {**out, **_set(usage=_usage_json(a.usage))}


def _set(**fields: Any) -> dict[str, Any]:
    """The fields that are set (not None): a wire action carries only those."""
    return {k: v for k, v in fields.items() if v is not None}


def _turn_to_wire(turn: Any, where: str) -> dict[str, Any]:
    if isinstance(turn, dsl.TurnSpec):
        return {"when": turn.prompt, "do": [
            _action_to_wire(a, f"{where} (when {json.dumps(turn.prompt)[:60]}), action {i + 1}")
            for i, a in enumerate(turn.actions)
        ]}
    if isinstance(turn, Mapping):
        wire = _static_json(dict(turn), where)
        _turn_from_wire(wire, where)  # validate now, not in the sandbox
        return wire  # type: ignore[no-any-return]
    raise SmokeSpecError(f"{where}: expected when(...) or a {{'when': ..., 'do': [...]}} dict, got {turn!r}")


def _ui_to_wire(mock_ui: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in mock_ui.items():
        if k not in _UI_KEYS:
            raise SmokeSpecError(f"{where}: unknown mock_ui option {k!r}; the dialogs are {', '.join(_UI_KEYS)}")
        if v is CANCELLED:
            out[k] = dict(_CANCEL_JSON)
        elif callable(v):
            raise SmokeSpecError(f"{where}: mock_ui[{k!r}] is a function; functions cannot cross into the sandbox. "
                                 "Use a static answer (True/False, an index or item, a string, or CANCEL).")
        else:
            out[k] = _static_json(v, f"{where}: mock_ui[{k!r}]")
    return out


def _mocks_to_wire(mock_tools: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, v in mock_tools.items():
        w = f"{where}: mock_tools[{name!r}]"
        if isinstance(v, str):
            out[name] = v
        elif callable(v):
            raise SmokeSpecError(f"{w} is a function; functions cannot cross into the sandbox interpreter. "
                                 "Use a string or a result dict {'content': [...], 'details': {...}}.")
        elif isinstance(v, Mapping) and isinstance(v.get("content"), list):
            out[name] = _static_json(dict(v), w)
        elif dataclasses.is_dataclass(v) and hasattr(v, "content"):  # a ToolResult
            content = [b.to_json() for b in v.content]
            out[name] = _static_json({"content": content, "details": getattr(v, "details", None) or {}}, w)
        else:
            raise SmokeSpecError(f"{w} is {type(v).__name__}; use a string or a result dict "
                                 "{'content': [{'type': 'text', 'text': ...}], 'details': {...}}")
    return out


def smoke_to_wire(smoke: Mapping[str, Any], *, where: str = "smoke") -> dict[str, Any]:
    """Check a smoke spec and turn it into the JSON the sandbox plays (see the module docstring)."""
    if not isinstance(smoke, Mapping):
        raise SmokeSpecError(f"{where}: expected a dict with 'script' (and optionally 'mock_tools', 'mock_ui'), "
                             f"got {type(smoke).__name__}")
    unknown = sorted(set(smoke) - set(SMOKE_KEYS))
    if unknown:
        raise SmokeSpecError(f"{where}: unknown key(s) {unknown}. Valid keys: {', '.join(SMOKE_KEYS)}")
    script = smoke.get("script")
    if not isinstance(script, Sequence) or isinstance(script, (str, bytes)) or not script:
        raise SmokeSpecError(f"{where}: 'script' must be a non-empty list of when(...) turns")
    out: dict[str, Any] = {
        "mock_tools": _mocks_to_wire(smoke.get("mock_tools") or {}, where),
        "mock_ui": _ui_to_wire(smoke.get("mock_ui") or {}, where),
        "script": [_turn_to_wire(t, f"{where}: turn {i + 1}") for i, t in enumerate(script)],
    }
    for key in ("has_ui", "propagate_errors"):
        if key in smoke:
            if not isinstance(smoke[key], bool):
                raise SmokeSpecError(f"{where}: {key!r} must be true or false, got {smoke[key]!r}")
            out[key] = smoke[key]
    return out


def load_smoke_file(path: str | Path) -> dict[str, Any]:
    """A smoke file → the wire dict. ``.py``: defines ``smoke`` (or ``SMOKE``); else YAML/JSON wire format."""
    p = Path(path)
    if not p.is_file():
        raise SmokeSpecError(f"smoke file {p} does not exist")
    if p.suffix == ".py":
        import runpy

        ns = runpy.run_path(str(p), run_name="autocue_smoke")
        spec = ns.get("smoke", ns.get("SMOKE"))
        if spec is None:
            raise SmokeSpecError(f"{p}: define `smoke = {{'mock_tools': {{...}}, 'script': [when(...), ...]}}` in it")
        return smoke_to_wire(spec, where=str(p))
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as e:
            raise SmokeSpecError(f"{p}: invalid JSON: {e}") from e
    else:
        try:
            doc = parse_document(text, str(p))
        except YamlError as e:
            raise SmokeSpecError(str(e)) from None
        data = doc.v if doc is not None else None
    return smoke_to_wire(data, where=str(p))


# ---------------------------------------------------------------------------- wire -> DSL

_ACTION_KEYS = {
    "call": {"call", "params", "id", "usage"},
    "say": {"say", "usage", "stop_reason"},
    "think": {"think", "signature"},
    "parallel": {"parallel", "usage"},
    "fail": {"fail", "kind", "status", "retry_after", "usage"},
}


def _action_from_wire(d: Any, where: str, *, nested: bool = False) -> dsl.Action:
    if not isinstance(d, Mapping):
        raise SmokeSpecError(f"{where}: an action is a dict like {{'call': 'tool', 'params': {{}}}} or "
                             f"{{'say': 'text'}}, got {d!r}")
    kinds = [k for k in _ACTION_KEYS if k in d]
    if len(kinds) != 1:
        raise SmokeSpecError(
            f"{where}: an action needs exactly one of call, say, think, parallel, fail; got {sorted(d)}"
        )
    kind = kinds[0]
    extra = sorted(set(d) - _ACTION_KEYS[kind])
    if extra:
        raise SmokeSpecError(f"{where}: unknown key(s) {extra} for a {kind!r} action; valid: "
                             f"{', '.join(sorted(_ACTION_KEYS[kind]))}")
    usage = d.get("usage")
    try:
        if kind == "call":
            params = d.get("params") or {}
            if not isinstance(params, Mapping):
                raise SmokeSpecError(f"{where}: 'params' must be a dict, got {params!r}")
            return dsl.call(str(d["call"]), dict(params), id=d.get("id"), usage=usage)
        if kind == "say":
            a = dsl.say(str(d["say"]), usage=usage)
            if "stop_reason" in d:
                a.stop_reason = d["stop_reason"]
            return a
        if kind == "think":
            return dsl.think(str(d["think"]), signature=d.get("signature"))
        if kind == "parallel":
            if nested:
                raise SmokeSpecError(f"{where}: parallel() cannot be nested")
            items = d["parallel"]
            if not isinstance(items, list):
                raise SmokeSpecError(f"{where}: 'parallel' must be a list of call/say/think actions")
            parts = [_action_from_wire(it, f"{where}, item {i + 1}", nested=True) for i, it in enumerate(items)]
            return dsl.parallel(*parts, usage=usage)  # type: ignore[arg-type]
        return dsl.fail(str(d["fail"]), d.get("kind", "error"), status=d.get("status"),
                    retry_after=d.get("retry_after"), usage=usage)
    except SmokeSpecError:
        raise
    except (TypeError, ValueError) as e:
        raise SmokeSpecError(f"{where}: {e}") from e


def _turn_from_wire(t: Any, w: str) -> dsl.TurnSpec:
    if not isinstance(t, Mapping) or "when" not in t:
        raise SmokeSpecError(f"{w}: a turn is {{'when': 'prompt', 'do': [actions]}}, got {t!r}")
    extra = sorted(set(t) - {"when", "do"})
    if extra:
        raise SmokeSpecError(f"{w}: unknown key(s) {extra}; a turn has 'when' and 'do'")
    actions = t.get("do") or []
    if not isinstance(actions, list):
        raise SmokeSpecError(f"{w}: 'do' must be a list of actions")
    return dsl.TurnSpec(str(t["when"]), [_action_from_wire(a, f"{w}, action {j + 1}") for j, a in enumerate(actions)])


def wire_to_turns(script: Any, *, where: str = "smoke") -> list[dsl.TurnSpec]:
    """The wire script (a list of ``{"when": prompt, "do": [actions]}``) → ``TurnSpec``s."""
    if not isinstance(script, list):
        raise SmokeSpecError(f"{where}: 'script' must be a list of turns")
    return [_turn_from_wire(t, f"{where}: turn {i + 1}") for i, t in enumerate(script)]


def wire_mock_ui(mock_ui: Mapping[str, Any]) -> dict[str, Any]:
    """Wire ``mock_ui`` → harness ``mock_ui`` (``{"$cancel": true}`` becomes ``CANCEL``)."""
    return {k: CANCELLED if v == _CANCEL_JSON else v for k, v in mock_ui.items()}


# ---------------------------------------------------------------------------- events <-> JSON


def jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-able copy of ``value`` (``to_json()`` used when present; ``CANCEL`` tagged; else ``repr``)."""
    if depth > 40:
        return repr(value)
    if value is CANCELLED:
        return dict(_CANCEL_JSON)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, depth + 1) for v in value]
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        try:
            return jsonable(to_json(), depth + 1)
        except Exception:
            return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    return repr(value)


def _unjson(value: Any) -> Any:
    if value == _CANCEL_JSON:
        return CANCELLED
    if isinstance(value, list):
        return [_unjson(v) for v in value]
    return value


class SandboxEvent:
    """An event recorded inside the sandbox: ``type`` plus its JSON fields as attributes
    (``ev.tool_name`` and ``ev.toolName`` both work)."""

    __slots__ = ("data", "type")

    def __init__(self, type: str, data: dict[str, Any]) -> None:
        self.type = type
        self.data = data

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "data")
        if name in data:
            return data[name]
        camel = to_camel(name)
        if camel in data:
            return data[camel]
        raise AttributeError(f"{self.type} event has no field {name!r} (fields: {', '.join(sorted(data))})")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def __repr__(self) -> str:
        return f"SandboxEvent({self.type!r}, {self.data!r})"


def events_to_json(events: TestEvents) -> dict[str, Any]:
    """Serialize a ``TestEvents`` (records, messages and every event)."""
    ui_index = {id(u): i for i, u in enumerate(events.ui)}
    all_: list[dict[str, Any]] = []
    for ev in events.all:
        if isinstance(ev, UICallRecord):
            all_.append({"type": "ui_call", "$ui": ui_index.get(id(ev), -1)})
        elif isinstance(ev, HarnessWarning):
            all_.append(ev.to_json())
        else:
            d = jsonable(ev)
            if not isinstance(d, dict):
                d = {"repr": d}
            d.setdefault("type", getattr(ev, "type", type(ev).__name__))
            all_.append(d)
    return {
        "tool_calls": [jsonable(c) for c in events.tool_calls],
        "tool_results": [
            {**{f: jsonable(getattr(r, f)) for f in ("step", "turn", "tool_name", "tool_call_id", "text", "is_error",
                                                   "details", "mocked", "blocked")},
             "content": [jsonable(b) for b in r.content]}
            for r in events.tool_results
        ],
        "messages": [jsonable(m) for m in events.messages],
        "ui": [{"method": u.method, "args": jsonable(u.args), "return_value": jsonable(u.return_value)}
               for u in events.ui],
        "warnings": [w.message for w in events.warnings],
        "all": all_,
    }


def _message(d: Any) -> Any:
    if isinstance(d, dict):
        try:
            return message_from_json(d)
        except (ValueError, KeyError, TypeError):
            return SandboxEvent(str(d.get("role", d.get("type", "message"))), d)
    return d


def _content(blocks: list[Any]) -> list[Any]:
    out: list[Any] = []
    for b in blocks:
        try:
            out.append(content_from_json(b))
        except (ValueError, KeyError, TypeError, AttributeError):
            out.append(b)
    return out


def events_from_json(data: Mapping[str, Any]) -> TestEvents:
    """Rebuild a ``TestEvents`` from ``events_to_json`` output (records are the real record classes)."""
    ev = TestEvents()
    ev.tool_calls = [ToolCallRecord(
        c["step"], c["turn"], c["tool_name"], c.get("input") or {}, bool(c.get("blocked")), c.get("block_reason"),
        c.get("tool_call_id", ""),
    ) for c in data.get("tool_calls", [])]
    ev.tool_results = [ToolResultRecord(
        r["step"], r["turn"], r["tool_name"], r["tool_call_id"], r["text"], _content(r.get("content", [])),
        bool(r["is_error"]), r.get("details"), bool(r.get("mocked")), bool(r.get("blocked")),
    ) for r in data.get("tool_results", [])]
    ev.messages = [_message(m) for m in data.get("messages", [])]
    ev.ui = [UICallRecord(u["method"], list(_unjson(u.get("args") or [])), _unjson(u.get("return_value")))
             for u in data.get("ui", [])]
    ev.warnings = [HarnessWarning(str(w)) for w in data.get("warnings", [])]
    for d in data.get("all", []):
        t = str(d.get("type", "?"))
        if t == "ui_call" and "$ui" in d and 0 <= d["$ui"] < len(ev.ui):
            ev.all.append(ev.ui[d["$ui"]])
        elif t == "harness_warning":
            ev.all.append(HarnessWarning(str(d.get("message", ""))))
        else:
            ev.all.append(SandboxEvent(t, {k: v for k, v in d.items() if k != "type"}))
    return ev


__all__ = [
    "SMOKE_KEYS", "SandboxEvent", "SmokeSpecError", "events_from_json", "events_to_json", "jsonable",
    "load_smoke_file", "smoke_to_wire", "wire_mock_ui", "wire_to_turns",
]
