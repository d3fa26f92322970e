"""Tool-argument validation against JSON Schema, compiled once per tool.

``compile_validator(schema)`` validates with ``jsonschema`` (the dialect the schema's
``$schema`` names, Draft 2020-12 without one), so every keyword has its exact JSON Schema
meaning; its errors are rewritten as one line each, ``path: what is wrong`` (``tags[1]: must be
string, got integer``), which is what the model reads. ``fast_validator(schema)`` is a quick
yes for the usual tool schema (an object whose properties only name their types): when it
says yes the value is certainly valid and ``jsonschema`` is not asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError


def _where(path: str) -> str:
    return path or "arguments"


def _path(err: ValidationError) -> str:
    out = ""
    for part in err.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_JSON_TYPES = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
               dict: "object"}


def _type_name(v: Any) -> str:
    return _JSON_TYPES.get(type(v), type(v).__name__)


_BOUNDS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _describe(err: ValidationError) -> str:
    """One error in the house style; a keyword not listed here keeps ``jsonschema``'s message."""
    kw, want, got = err.validator, err.validator_value, err.instance
    if kw == "type":
        names = [want] if isinstance(want, str) else list(want)
        return f"must be {' or '.join(names)}, got {_type_name(got)}"
    if kw == "required":
        missing = [r for r in want if isinstance(got, dict) and r not in got]
        return "; ".join(f"missing required property {r!r}" for r in missing) or err.message
    if kw == "additionalProperties" and want is False and isinstance(got, dict):
        allowed = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        extra = [k for k in got if k not in allowed]
        return "; ".join(f"unexpected property {k!r}" for k in extra) or err.message
    if kw == "enum":
        return f"must be one of {want!r}, got {got!r}"
    if kw == "const":
        return f"must be {want!r}, got {got!r}"
    if kw in _BOUNDS:
        op = _BOUNDS[str(kw)]
        exclusive = isinstance(err.schema, dict) and err.schema.get("exclusive" + str(kw).capitalize()) is True
        return f"must be {op.rstrip('=') if exclusive else op} {want}, got {got}"  # draft 4: a boolean exclusive*
    if kw in ("minLength", "minItems"):
        return f"length must be at least {want}"
    if kw in ("maxLength", "maxItems"):
        return f"length must be at most {want}"
    if kw == "pattern":
        return f"must match pattern {want!r}"
    if kw in ("anyOf", "oneOf") and err.context:
        first = min(e.relative_schema_path[0] for e in err.context)
        why = "; ".join(
            f"{_where(_path(e))}: {_describe(e)}" for e in err.context if e.relative_schema_path[0] == first
        )
        return f"matches none of the allowed forms ({why})"
    if kw == "oneOf":
        return "matches more than one allowed form"
    if err.schema is False:
        return "no value is allowed here"
    return str(err.message)


def compile_validator(schema: dict[str, Any]) -> Callable[[Any], list[str]]:
    """Compile ``schema`` once; the returned function lists the errors of a value (empty if valid)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)

    def validate(value: Any) -> list[str]:
        return [f"{_where(_path(err))}: {_describe(err)}" for err in validator.iter_errors(value)]

    return validate


_EXACT_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "null": frozenset({type(None)}),
}
_IGNORED = frozenset(
    {
        "title", "description", "default", "examples", "$schema", "$id", "$comment", "format",
        "deprecated", "readOnly", "writeOnly", "$defs", "definitions", "nullable",
    }
)
"""Keywords that never make a value invalid here (``format`` only annotates without a format
checker; ``nullable`` is OpenAPI's, unknown to JSON Schema)."""
_FAST_KEYS = _IGNORED | frozenset({"type", "properties", "required", "additionalProperties"})
_MISSING: Any = object()


def _is_dict(v: Any) -> bool:
    return type(v) is dict


def fast_validator(schema: Any) -> Callable[[Any], bool] | None:
    """A quick yes for the usual tool schema: an object whose properties only name their types.

    The function answers True when the value is certainly valid, with no error list and no
    paths built; False means "not certain" (an invalid value, or a valid one it does not try,
    like ``1.0`` for an integer), and the full check must decide. None: the schema needs more.
    """
    if not isinstance(schema, dict) or schema.get("type") != "object" or not schema.keys() <= _FAST_KEYS:
        return None
    props = schema.get("properties") or {}
    required = schema.get("required") or []
    addl = schema.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list) or (addl is not True and addl is not False):
        return None
    kinds: dict[str, frozenset[type] | None] = {}
    for key, sub in props.items():
        if not isinstance(sub, dict) or not sub.keys() <= _IGNORED | {"type"}:
            return None
        t = sub.get("type")
        if t is None:
            kinds[key] = None
            continue
        allowed: set[type] = set()
        for name in [t] if isinstance(t, str) else t if isinstance(t, list) else [None]:
            if name not in _EXACT_TYPES:
                return None
            allowed |= _EXACT_TYPES[name]
        kinds[key] = frozenset(allowed)
    needed = tuple(required)
    open_ = addl is True
    if open_ and not kinds and not needed:
        return _is_dict

    def fast(v: Any) -> bool:
        if type(v) is not dict:
            return False
        for r in needed:
            if r not in v:
                return False
        get = kinds.get
        for k, val in v.items():
            ok = get(k, _MISSING)
            if ok is _MISSING:
                if not open_:
                    return False
            elif ok is not None and type(val) not in ok:
                return False
        return True

    return fast


__all__ = ["compile_validator", "fast_validator"]
