"""YAML with positions: parse with ruamel.yaml (round-trip) and walk nodes that know where they are.

``parse_documents(text, file)`` returns one ``Node`` per YAML document, or raises
``ScenarioError`` at the syntax error's line and column (duplicate keys included). A ``Node``
carries the value, its path (``timeline[3].think``) and ``Pos``; ``plain(value)`` converts
ruamel's comment-carrying containers and scalar subclasses to plain Python data.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from autocue.scenario.errors import Pos, ScenarioError


class Node:
    """A value in a YAML document with its path and position."""

    __slots__ = ("path", "pos", "v")

    def __init__(self, v: Any, path: str, pos: Pos) -> None:
        self.v = v
        self.path = path
        self.pos = pos

    @property
    def is_map(self) -> bool:
        return isinstance(self.v, dict)

    @property
    def is_seq(self) -> bool:
        return isinstance(self.v, list)

    def key_names(self) -> list[str]:
        return [k for k in self.v]

    def __contains__(self, key: str) -> bool:
        return key in self.v

    def key(self, k: str) -> Node:
        """The value under key ``k`` (which must exist)."""
        v = self.v[k]
        return Node(v, f"{self.path}.{k}" if self.path else str(k), self._pos_of(k, value=True))

    def get(self, *names: str) -> Node | None:
        """The first of ``names`` present, as a node (``None`` if absent)."""
        for k in names:
            if k in self.v:
                return self.key(k)
        return None

    def key_pos(self, k: str) -> Pos:
        return self._pos_of(k, value=False)

    def key_path(self, k: str) -> str:
        return f"{self.path}.{k}" if self.path else str(k)

    def items(self) -> Iterator[Node]:
        v = self.v
        for i in range(len(v)):
            yield Node(v[i], f"{self.path}[{i}]", self._item_pos(i))

    def _pos_of(self, k: str, *, value: bool) -> Pos:
        lc = getattr(self.v, "lc", None)
        if lc is not None:
            try:
                line, col = lc.value(k) if value else lc.key(k)
                return Pos(self.pos.file, line + 1, col + 1)
            except (KeyError, TypeError, AttributeError):
                pass
        return self.pos

    def _item_pos(self, i: int) -> Pos:
        lc = getattr(self.v, "lc", None)
        if lc is not None:
            try:
                line, col = lc.item(i)
                return Pos(self.pos.file, line + 1, col + 1)
            except (KeyError, TypeError, AttributeError, IndexError):
                pass
        return self.pos


def parse_documents(text: str, file: str) -> list[Node]:
    """Parse every YAML document in ``text``; raise ``ScenarioError`` on a syntax error."""
    yaml = YAML(typ="rt")
    try:
        docs = list(yaml.load_all(text))
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise ScenarioError(
            f"invalid YAML: {problem or e}. Fix the syntax at this position (check indentation, quotes and brackets).",
            Pos(file, line, col),
        ) from None
    except YAMLError as e:
        raise ScenarioError(f"invalid YAML: {e}", Pos(file, 1, 1)) from None
    out: list[Node] = []
    for d in docs:
        lc = getattr(d, "lc", None)
        pos = Pos(file, lc.line + 1, lc.col + 1) if lc is not None else Pos(file, 1, 1)
        out.append(Node(d, "", pos))
    return out


def plain(v: Any) -> Any:
    """Deep-convert ruamel containers and scalar subclasses to plain dict/list/str/int/float/bool."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        if type(v).__name__ == "ScalarBoolean":
            return bool(v)
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if hasattr(v, "value"):  # TaggedScalar
        return plain(v.value)
    return v


def type_name(v: Any) -> str:
    """The YAML-ish name of a value's type, for error messages."""
    if v is None:
        return "null"
    if isinstance(v, bool) or type(v).__name__ == "ScalarBoolean":
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return type(v).__name__
