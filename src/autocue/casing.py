"""The one camelCase / snake_case helper.

pi writes camelCase keys (``baseUrl``, ``repeatMode``, ``isError``); autocue's Python names are
snake_case, and both spellings are accepted wherever a user writes such a dict. Conversion is
never blanket: only keys a caller names in an explicit list change spelling, every other key
(an extension's own, a tool argument) is kept exactly as written.

    to_camel("skill_paths")                        # 'skillPaths'
    to_snake("contextWindow")                      # 'context_window'
    snake_keys({"baseUrl": u, "x-y": 1}, {"base_url"})   # {'base_url': u, 'x-y': 1}
    camel_keys({"repeat_gap": 3}, {"repeatGap"})         # {'repeatGap': 3}
    field(result, "is_error")                      # result["is_error"] or result["isError"],
                                                   # or result.is_error; MISSING when absent

``CamelJson`` is the one ``to_json()`` of a dataclass under camelCase keys: the agent and stream
events (every field) and pi's session records (an explicit key table in pi's order).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

__all__ = ["MISSING", "CamelJson", "camel_keys", "field", "to_camel", "to_snake", "snake_keys"]

_UPPER = re.compile(r"(?<=[a-z0-9])([A-Z])")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final[Any] = _Missing()
"""What :func:`field` returns for a field that is not there (falsy; compare with ``is``)."""


def to_camel(name: str) -> str:
    """``skill_paths`` → ``skillPaths`` (a name without ``_`` is returned as it is)."""
    if "_" not in name:
        return name
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def to_snake(name: str) -> str:
    """``contextWindow`` → ``context_window`` (a name without capitals is returned as it is)."""
    return _UPPER.sub(r"_\1", name).lower() if not name.islower() else name


def snake_keys(d: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """``d`` with the camelCase spelling of each ``known`` snake_case key renamed to it."""
    rename = {to_camel(k): k for k in known}
    return {rename.get(k, k): v for k, v in d.items()}


def camel_keys(d: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """``d`` with the snake_case spelling of each ``known`` camelCase key renamed to it."""
    rename = {to_snake(k): k for k in known}
    return {rename.get(k, k): v for k, v in d.items()}


def field(obj: Any, name: str) -> Any:
    """Field ``name`` (snake_case) of a dict (either spelling) or of an object; else ``MISSING``."""
    if type(obj) is dict or isinstance(obj, Mapping):  # the plain-dict test first: hook results on every call
        if name in obj:
            return obj[name]
        return obj.get(to_camel(name), MISSING)
    return getattr(obj, name, MISSING)


class CamelJson:
    """``to_json()`` of a dataclass under camelCase keys: ``HEAD`` first (the value of that
    attribute, e.g. a ``type`` tag; None: no head), then ``KEYS`` in order, each the value of its
    snake_case field; a key written with a trailing ``?`` is left out while its field is None.
    ``KEYS = None``: every dataclass field in declaration order, less ``not_json``. A value with
    a ``to_json`` (or a list of such values) is written through it."""

    __slots__ = ()
    HEAD: ClassVar[str | None] = "type"
    KEYS: ClassVar[tuple[str, ...] | None] = None
    not_json: ClassVar[frozenset[str]] = frozenset()
    """Fields left out when ``KEYS`` is None."""

    @classmethod
    def json_attrs(cls) -> tuple[tuple[str, str, bool], ...]:
        """``(key, field name, left out while None)`` for each key ``to_json`` writes after ``HEAD``."""
        return _ATTRS.get(cls) or _attrs(cls)

    def to_json(self) -> dict[str, Any]:
        attrs = _ATTRS.get(type(self)) or _attrs(type(self))
        head = self.HEAD
        d: dict[str, Any] = {} if head is None else {head: getattr(self, head)}
        for key, attr, optional in attrs:
            v = getattr(self, attr)
            if v is not None:
                d[key] = _json_value(v)
            elif not optional:
                d[key] = None
        return d


_ATTRS: dict[type, tuple[tuple[str, str, bool], ...]] = {}
"""Per class: ``(key, field name, left out while None)`` (built on first use; the same for every thread)."""


def _attrs(cls: type[CamelJson]) -> tuple[tuple[str, str, bool], ...]:
    if cls.KEYS is None:
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        attrs = tuple((to_camel(f.name), f.name, False) for f in fields if f.name not in cls.not_json)
    else:
        attrs = tuple((k.rstrip("?"), to_snake(k.rstrip("?")), k.endswith("?")) for k in cls.KEYS)
    _ATTRS[cls] = attrs
    return attrs


def _json_value(v: Any) -> Any:
    if type(v) is list:
        return [_json_value(x) for x in v]
    to_json = getattr(v, "to_json", None)
    return v if to_json is None else to_json()
