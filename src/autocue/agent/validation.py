"""Tool-argument validation against JSON Schema, compiled once per tool.

The common subset of JSON Schema (type, properties, required, additionalProperties, items,
enum, const, numeric and length bounds, pattern, anyOf/oneOf/allOf, local ``$ref``) compiles
to plain Python closures, so a call costs a few microseconds. Schemas using anything else
are validated by the ``jsonschema`` package.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from autocue.errors import AutocueError

Errors = list[str]
Check = Callable[[Any, str, Errors], None]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

_IGNORED = frozenset(
    {
        "title", "description", "default", "examples", "$schema", "$id", "$comment", "format",
        "deprecated", "readOnly", "writeOnly", "$defs", "definitions", "nullable",
    }
)
_SUPPORTED = _IGNORED | frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
        "minItems", "maxItems", "pattern", "anyOf", "oneOf", "allOf", "$ref",
    }
)


class _Unsupported(AutocueError):
    pass


def _where(path: str) -> str:
    return path or "arguments"


def _compile(schema: Any, root: dict[str, Any], depth: int = 0) -> Check:
    if schema is True or schema == {}:
        return lambda v, p, e: None
    if schema is False:
        return lambda v, p, e: e.append(f"{_where(p)}: no value is allowed here")
    if not isinstance(schema, dict) or depth > 32:
        raise _Unsupported
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise _Unsupported
    checks: list[Check] = []

    ref = schema.get("$ref")
    if ref is not None:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise _Unsupported
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        checks.append(_compile(target, root, depth + 1))

    t = schema.get("type")
    if t is not None:
        names = [t] if isinstance(t, str) else list(t)
        tests = [_TYPES[n] for n in names]
        label = " or ".join(names)

        def check_type(v: Any, p: str, e: Errors, tests: list[Callable[[Any], bool]] = tests) -> None:
            for test in tests:
                if test(v):
                    return
            e.append(f"{_where(p)}: must be {label}, got {_type_name(v)}")

        checks.append(check_type)

    if "enum" in schema:
        allowed = list(schema["enum"])

        def check_enum(v: Any, p: str, e: Errors) -> None:
            if not any(json_equal(v, a) for a in allowed):
                e.append(f"{_where(p)}: must be one of {allowed!r}, got {v!r}")

        checks.append(check_enum)
    if "const" in schema:
        const = schema["const"]

        def check_const(v: Any, p: str, e: Errors) -> None:
            if not json_equal(v, const):
                e.append(f"{_where(p)}: must be {const!r}, got {v!r}")

        checks.append(check_const)

    props = schema.get("properties")
    required = schema.get("required") or []
    addl = schema.get("additionalProperties", True)
    if props is not None or required or addl is not True:
        prop_checks = {k: _compile(s, root, depth + 1) for k, s in (props or {}).items()}
        addl_check = None if addl is True or addl is False else _compile(addl, root, depth + 1)
        forbid = addl is False

        def check_obj(v: Any, p: str, e: Errors) -> None:
            if not isinstance(v, dict):
                return
            for r in required:
                if r not in v:
                    e.append(f"{_where(p)}: missing required property {r!r}")
            for k, val in v.items():
                sub = f"{p}.{k}" if p else k
                c = prop_checks.get(k)
                if c is not None:
                    c(val, sub, e)
                elif forbid:
                    e.append(f"{_where(p)}: unexpected property {k!r}")
                elif addl_check is not None:
                    addl_check(val, sub, e)

        checks.append(check_obj)

    items = schema.get("items")
    if items is not None:
        item_check = _compile(items, root, depth + 1)

        def check_items(v: Any, p: str, e: Errors) -> None:
            if isinstance(v, list):
                for i, x in enumerate(v):
                    item_check(x, f"{p}[{i}]", e)

        checks.append(check_items)

    for key, cmp, msg in (
        ("minimum", lambda v, b: v >= b, ">="),
        ("maximum", lambda v, b: v <= b, "<="),
        ("exclusiveMinimum", lambda v, b: v > b, ">"),
        ("exclusiveMaximum", lambda v, b: v < b, "<"),
    ):
        if key in schema:
            bound = schema[key]

            def check_num(v: Any, p: str, e: Errors, bound: Any = bound, cmp: Any = cmp, msg: str = msg) -> None:
                if isinstance(v, (int, float)) and not isinstance(v, bool) and not cmp(v, bound):
                    e.append(f"{_where(p)}: must be {msg} {bound}, got {v}")

            checks.append(check_num)
    for key, kind, is_min in (
        ("minLength", str, True),
        ("maxLength", str, False),
        ("minItems", list, True),
        ("maxItems", list, False),
    ):
        if key in schema:
            n = schema[key]

            def check_len(v: Any, p: str, e: Errors, n: int = n, kind: type = kind, is_min: bool = is_min) -> None:
                if isinstance(v, kind) and (len(v) < n if is_min else len(v) > n):  # type: ignore[arg-type]
                    e.append(f"{_where(p)}: length must be {'at least' if is_min else 'at most'} {n}")

            checks.append(check_len)
    if "pattern" in schema:
        rx = re.compile(schema["pattern"])

        def check_pattern(v: Any, p: str, e: Errors) -> None:
            if isinstance(v, str) and not rx.search(v):
                e.append(f"{_where(p)}: must match pattern {rx.pattern!r}")

        checks.append(check_pattern)

    for key in ("anyOf", "oneOf"):
        if key in schema:
            alts = [_compile(s, root, depth + 1) for s in schema[key]]
            exactly_one = key == "oneOf"

            def check_alts(
                v: Any, p: str, e: Errors, alts: list[Check] = alts, exactly_one: bool = exactly_one
            ) -> None:
                ok = 0
                first: Errors = []
                for a in alts:
                    sub: Errors = []
                    a(v, p, sub)
                    if not sub:
                        ok += 1
                    elif not first:
                        first = sub
                if ok == 0:
                    e.append(f"{_where(p)}: matches none of the allowed forms ({'; '.join(first)})")
                elif exactly_one and ok > 1:
                    e.append(f"{_where(p)}: matches more than one allowed form")

            checks.append(check_alts)
    if "allOf" in schema:
        checks.extend(_compile(s, root, depth + 1) for s in schema["allOf"])

    if len(checks) == 1:
        return checks[0]

    def check_all(v: Any, p: str, e: Errors) -> None:
        for c in checks:
            c(v, p, e)

    return check_all


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema's ``enum`` and ``const`` define it.

    Python's ``==`` says ``True == 1`` and ``[True] == [1]``; JSON Schema keeps booleans apart
    from numbers (at any depth), while ``1`` and ``1.0`` are the same number.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


_EXACT_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "null": frozenset({type(None)}),
}
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


def compile_validator(schema: dict[str, Any]) -> Callable[[Any], list[str]]:
    """Compile ``schema`` once; the returned function lists the errors of a value (empty if valid)."""
    try:
        check = _compile(schema, schema)
    except (_Unsupported, KeyError, TypeError, re.error):
        return _jsonschema_validator(schema)

    def validate(value: Any) -> list[str]:
        errors: Errors = []
        check(value, "", errors)
        return errors

    return validate


def _jsonschema_validator(schema: dict[str, Any]) -> Callable[[Any], list[str]]:
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema)

    def validate(value: Any) -> list[str]:
        out = []
        for err in validator.iter_errors(value):
            path = ".".join(str(p) for p in err.absolute_path)
            out.append(f"{_where(path)}: {err.message}")
        return out

    return validate
