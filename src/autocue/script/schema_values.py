"""Seeded values for a JSON Schema: what a scripted model answers when it is asked to call a tool with
arguments it invents (``callEveryTool``) or to answer in a declared response schema (``structuredOutput``).

``schema_value(schema, seed)`` draws a value from ``random.Random`` seeded with a string (the same seed
gives the same value on every run and machine) and checks it with ``jsonschema``; a draw that does not
validate is drawn again a few times, then ``SchemaValueError`` names the first reason. It covers the
keywords tools and response schemas use: ``type`` (one or a list), ``properties``/``required``,
``additionalProperties``, ``enum``, ``const``, ``items``/``prefixItems``, ``minItems``/``maxItems``/
``uniqueItems``, ``minimum``/``maximum`` (and the exclusive forms), ``multipleOf``, ``minLength``/
``maxLength``, ``pattern`` (drawn from the parsed expression), ``format`` (date-time, date, time, email,
uri, uuid, ipv4, ipv6, hostname), ``anyOf``/``oneOf``/``allOf``, ``not`` (by redrawing), ``$ref`` into
``$defs``/``definitions``, and ``nullable`` (OpenAPI, as Gemini's ``responseSchema`` writes it).

autocue's runtime does not import hypothesis (a test dependency): ``hypothesis-jsonschema`` draws only
inside hypothesis's engine, whose deterministic draws (``find``, a seeded ``ConjectureData``) are
private or search for a minimal example rather than a seeded one.
"""

from __future__ import annotations

import math
import random
import re
import string
from typing import Any

from jsonschema import FormatChecker
from jsonschema.exceptions import best_match
from jsonschema.validators import Draft202012Validator, validator_for

from autocue.script.errors import SchemaValueError

try:  # the regular-expression parser (``sre_parse`` before Python 3.11, deprecated since)
    from re import _parser as sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse as sre  # type: ignore[no-redef]

_ATTEMPTS = 25
_DEEP = 5
"""Nesting depth from which optional properties, items and recursive branches are left out."""
_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
          "kilo", "lima", "mike", "november", "oscar", "papa")
_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


def schema_value(schema: Any, seed: int | str = 0) -> Any:
    """A value ``schema`` accepts, the same for the same ``seed``; ``SchemaValueError`` when none is found."""
    if schema is False:
        raise SchemaValueError("the schema is `false`: no value satisfies it")
    if schema is True or schema is None:
        schema = {}
    if not isinstance(schema, dict):
        raise SchemaValueError(f"a JSON Schema is an object, got {type(schema).__name__}")
    checked = json_schema(schema)
    cls = validator_for(checked, default=Draft202012Validator)
    validator = cls(checked, format_checker=FormatChecker())
    rng = random.Random(f"autocue-schema-value:{seed}")
    gen = _Gen(schema, rng)
    first: str | None = None
    for _ in range(_ATTEMPTS):
        try:
            value = gen.value(schema, 0)
        except _Impossible as e:
            first = first or str(e)
            continue
        error = best_match(validator.iter_errors(value))
        if error is None:
            return value
        where = "/".join(str(p) for p in error.absolute_path)
        first = first or f"{error.message}{' at /' + where if where else ''}"
    raise SchemaValueError(f"no value satisfies the schema after {_ATTEMPTS} draws: {first}")


def json_schema(schema: Any) -> Any:
    """``schema`` as JSON Schema: OpenAPI's upper-case type names (Gemini's ``responseSchema``) in
    lower case and ``nullable: true`` as a ``null`` type; anything else as it is."""
    if isinstance(schema, list):
        return [json_schema(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: (v if k in ("enum", "const", "default", "example", "examples") else json_schema(v))
           for k, v in schema.items() if k != "nullable"}
    t = schema.get("type")
    if isinstance(t, str) and t.isupper():
        out["type"] = t = t.lower()
    if schema.get("nullable") is True and isinstance(t, str):
        out["type"] = [t, "null"]
    return out


class _Impossible(Exception):
    pass


def _as_types(t: Any) -> list[str]:
    if isinstance(t, str):
        return [t.lower()]  # Gemini's OpenAPI schemas write STRING, OBJECT, ...
    if isinstance(t, list):
        return [str(x).lower() for x in t]
    return []


class _Gen:
    __slots__ = ("rng", "root")

    def __init__(self, root: dict[str, Any], rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    # ------------------------------------------------------------------ dispatch
    def value(self, s: Any, depth: int) -> Any:
        if s is True or s is None or s == {}:
            return self.rng.choice(_WORDS)
        if s is False or not isinstance(s, dict):
            raise _Impossible("a `false` schema accepts no value")
        if "$ref" in s:
            target = self.ref(s["$ref"])
            rest = {k: v for k, v in s.items() if k not in ("$ref", "$defs", "definitions")}
            return self.value({**target, **rest} if rest else target, depth + 1)
        if "allOf" in s:
            merged = {k: v for k, v in s.items() if k != "allOf"}
            for part in s["allOf"]:
                merged = _merge(merged, self.ref(part["$ref"]) if isinstance(part, dict) and "$ref" in part else part)
            return self.value(merged, depth)
        if "const" in s:
            return s["const"]
        if isinstance(s.get("enum"), list) and s["enum"]:
            return self.rng.choice(s["enum"])
        for key in ("anyOf", "oneOf"):
            branches = s.get(key)
            if isinstance(branches, list) and branches:
                rest = {k: v for k, v in s.items() if k != key}
                return self.value(_merge(rest, self.branch(branches, depth)), depth)
        types = _as_types(s.get("type"))
        if s.get("nullable") is True and "null" not in types:
            types = [*types, "null"] if types else []
        if not types:
            types = [self.infer(s)]
        real = [t for t in types if t != "null"] or types
        t = self.rng.choice(real) if self.rng.random() < 0.9 or len(types) == 1 else "null"
        return getattr(self, "t_" + t, self.t_unknown)(s, depth)

    def ref(self, ref: Any) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _Impossible(f"only local references are followed, not {ref!r}")
        node: Any = self.root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Impossible(f"the reference {ref!r} leads nowhere")
        return node

    def branch(self, branches: list[Any], depth: int) -> Any:
        if depth >= _DEEP:  # prefer a branch that ends the recursion
            plain = [b for b in branches if isinstance(b, dict) and "$ref" not in b]
            if plain:
                return plain[0]
        return self.rng.choice(branches)

    @staticmethod
    def infer(s: dict[str, Any]) -> str:
        if "properties" in s or "required" in s or "additionalProperties" in s:
            return "object"
        if "items" in s or "prefixItems" in s:
            return "array"
        if any(k in s for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return "string"

    # ------------------------------------------------------------------ types
    def t_unknown(self, s: dict[str, Any], depth: int) -> Any:
        raise _Impossible(f"unknown type {s.get('type')!r}")

    def t_null(self, s: dict[str, Any], depth: int) -> None:
        return None

    def t_boolean(self, s: dict[str, Any], depth: int) -> bool:
        return self.rng.random() < 0.5

    def t_object(self, s: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = s["properties"] if isinstance(s.get("properties"), dict) else {}
        required = [r for r in s.get("required") or [] if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or (depth < _DEEP and self.rng.random() < 0.5):
                out[name] = self.value(sub, depth + 1)
        extra = s.get("additionalProperties")
        for name in required:
            if name not in out:
                out[name] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
        want = s.get("minProperties")
        n = 0
        while isinstance(want, int) and len(out) < want and extra is not False and n < want + 5:
            out[f"{self.rng.choice(_WORDS)}_{n}"] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
            n += 1
        return out

    def t_array(self, s: dict[str, Any], depth: int) -> list[Any]:
        prefix = s.get("prefixItems")
        items = s.get("items")
        if isinstance(items, list):  # draft 4-7 tuple form
            prefix, items = items, s.get("additionalItems", {})
        prefix = prefix if isinstance(prefix, list) else []
        lo: int = s["minItems"] if isinstance(s.get("minItems"), int) else 0
        hi: int = s["maxItems"] if isinstance(s.get("maxItems"), int) else max(lo, 3)
        if hi < lo:
            raise _Impossible(f"minItems {lo} is more than maxItems {hi}")
        n = lo if depth >= _DEEP else self.rng.randint(max(lo, min(1, hi)), max(lo, min(hi, lo + 3)))
        n = max(n, min(len(prefix), hi)) if items is False else n
        out: list[Any] = []
        for i in range(n):
            sub = prefix[i] if i < len(prefix) else (items if items is not None else {})
            if sub is False:
                break
            v = self.value(sub, depth + 1)
            if s.get("uniqueItems") is True:
                for _ in range(10):
                    if v not in out:
                        break
                    v = self.value(sub, depth + 1)
            out.append(v)
        return out

    def t_integer(self, s: dict[str, Any], depth: int) -> int:
        lo, hi = self.bounds(s, True)
        m = s.get("multipleOf")
        if isinstance(m, int) and m > 0:
            first, last = -(-lo // m), hi // m
            if first > last:
                raise _Impossible(f"no multiple of {m} lies between {lo} and {hi}")
            return self.rng.randint(first, last) * m
        return self.rng.randint(lo, hi)

    def t_number(self, s: dict[str, Any], depth: int) -> float | int:
        m = s.get("multipleOf")
        if isinstance(m, (int, float)) and not isinstance(m, bool) and m > 0:
            lo, hi = self.bounds(s, False)
            first, last = int(-(-lo // m)), int(hi // m)
            if first > last:
                raise _Impossible(f"no multiple of {m} lies between {lo} and {hi}")
            return self.rng.randint(first, last) * m
        lo, hi = self.bounds(s, False)
        if self.rng.random() < 0.5 and math.floor(hi) >= math.ceil(lo):  # a whole number fits
            return self.t_integer(s, depth)
        return round(self.rng.uniform(lo, hi), 3) if lo < hi else lo

    def bounds(self, s: dict[str, Any], integer: bool) -> tuple[Any, Any]:
        lo: float = -1000
        hi: float = 1000
        step = 1 if integer else 0.001
        if _num(s.get("minimum")):
            lo = s["minimum"] + (step if s.get("exclusiveMinimum") is True else 0)
        if _num(s.get("exclusiveMinimum")):
            lo = max(lo, s["exclusiveMinimum"] + step) if "minimum" in s else s["exclusiveMinimum"] + step
        if _num(s.get("maximum")):
            hi = s["maximum"] - (step if s.get("exclusiveMaximum") is True else 0)
        if _num(s.get("exclusiveMaximum")):
            hi = min(hi, s["exclusiveMaximum"] - step) if "maximum" in s else s["exclusiveMaximum"] - step
        if "minimum" in s or "exclusiveMinimum" in s:
            hi = hi if ("maximum" in s or "exclusiveMaximum" in s) else lo + 1000
        elif "maximum" in s or "exclusiveMaximum" in s:
            lo = hi - 1000
        if integer:
            lo, hi = int(-(-lo // 1)), int(hi // 1)
        if lo > hi:
            raise _Impossible(f"the minimum {lo} is above the maximum {hi}")
        return lo, hi

    def t_string(self, s: dict[str, Any], depth: int) -> str:
        lo: int = s["minLength"] if isinstance(s.get("minLength"), int) else 0
        hi: int | None = s["maxLength"] if isinstance(s.get("maxLength"), int) else None
        if hi is not None and hi < lo:
            raise _Impossible(f"minLength {lo} is more than maxLength {hi}")
        fmt = s.get("format")
        if isinstance(s.get("pattern"), str):
            text = self.pattern(s["pattern"])
        elif isinstance(fmt, str) and fmt in _FORMATS:
            text = _FORMATS[fmt](self.rng)
        else:
            text = f"{self.rng.choice(_WORDS)}-{self.rng.randint(0, 99)}"
        if len(text) < lo:
            text += "".join(self.rng.choice(string.ascii_lowercase) for _ in range(lo - len(text)))
        if hi is not None and len(text) > hi:
            text = text[:hi]
        return text

    def pattern(self, pattern: str) -> str:
        try:
            parsed = sre.parse(pattern)
        except re.error as e:
            raise _Impossible(f"the pattern {pattern!r} is no regular expression: {e}") from e
        return self.regex(parsed)

    def regex(self, items: Any) -> str:
        out: list[str] = []
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(arg))
            elif name == "ANY":
                out.append(self.rng.choice(string.ascii_letters))
            elif name == "IN":
                out.append(self.char_in(arg))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                lo, hi, sub = arg
                hi = min(hi, lo + 3) if hi != sre.MAXREPEAT else lo + 3
                out.extend(self.regex(sub) for _ in range(self.rng.randint(lo, max(lo, hi))))
            elif name == "SUBPATTERN":
                out.append(self.regex(arg[-1]))
            elif name == "BRANCH":
                out.append(self.regex(self.rng.choice(arg[1])))
            elif name == "CATEGORY":
                out.append(self.category(str(arg)))
            elif name in ("AT", "ASSERT", "ASSERT_NOT"):
                continue
            else:
                raise _Impossible(f"the pattern uses {name.lower()}, which autocue does not draw from")
        return "".join(out)

    def char_in(self, arg: list[Any]) -> str:
        if arg and str(arg[0][0]) == "NEGATE":
            banned = {chr(c) for op, c in arg[1:] if str(op) == "LITERAL"}
            return next(c for c in string.ascii_letters + string.digits if c not in banned)
        op, val = self.rng.choice(arg)
        if str(op) == "LITERAL":
            return chr(val)
        if str(op) == "RANGE":
            return chr(self.rng.randint(val[0], val[1]))
        return self.category(str(val))

    def category(self, name: str) -> str:
        if name.endswith("_DIGIT"):
            return self.rng.choice(string.digits) if "NOT" not in name else "a"
        if name.endswith("_SPACE"):
            return " " if "NOT" not in name else "a"
        return self.rng.choice(string.ascii_letters) if "NOT" not in name else "-"


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _merge(a: dict[str, Any], b: Any) -> dict[str, Any]:
    """``a`` and ``b`` as one schema (``allOf``): properties and ``required`` united, bounds tightened."""
    if not isinstance(b, dict):
        if b is False:
            raise _Impossible("a `false` schema accepts no value")
        return a
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif k == "properties" and isinstance(v, dict):
            out[k] = {**out[k], **v}
        elif k == "required" and isinstance(v, list):
            out[k] = list(dict.fromkeys([*out[k], *v]))
        elif k in ("minimum", "minLength", "minItems", "exclusiveMinimum") and _num(v) and _num(out[k]):
            out[k] = max(out[k], v)
        elif k in ("maximum", "maxLength", "maxItems", "exclusiveMaximum") and _num(v) and _num(out[k]):
            out[k] = min(out[k], v)
        elif k == "type" and out[k] != v:
            both = [t for t in _as_types(out[k]) if t in _as_types(v)]
            if not both:
                raise _Impossible(f"the types {out[k]!r} and {v!r} have no value in common")
            out[k] = both
        else:
            out[k] = v
    return out


_FORMATS = {
    "date-time": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:"
                           f"{r.randint(0, 59):02d}:00Z",
    "date": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
    "time": lambda r: f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z",
    "email": lambda r: f"{r.choice(_WORDS)}@example.com",
    "uri": lambda r: f"https://example.com/{r.choice(_WORDS)}",
    "url": lambda r: f"https://example.com/{r.choice(_WORDS)}",
    "uuid": lambda r: f"{r.getrandbits(32):08x}-{r.getrandbits(16):04x}-4{r.getrandbits(12):03x}-"
                      f"8{r.getrandbits(12):03x}-{r.getrandbits(48):012x}",
    "ipv4": lambda r: ".".join(str(r.randint(1, 254)) for _ in range(4)),
    "ipv6": lambda r: ":".join(f"{r.getrandbits(16):x}" for _ in range(8)),
    "hostname": lambda r: f"{r.choice(_WORDS)}.example.com",
}

__all__ = ["SchemaValueError", "json_schema", "schema_value"]
