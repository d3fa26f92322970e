"""autocue's one YAML loader: plain data plus the line and column of every value.

Used by scenarios, the loop config, resource front matter, sandbox smoke specs and launch profile
files; each caller turns a ``YamlError`` into its own error type, keeping ``file:line:col``.

``parse_documents(text, file)`` returns one ``Node`` per YAML document (``parse_document``:
the one document of a file, or None when it is empty), or raises ``YamlError`` at the syntax
error's line and column (duplicate keys included). Values are plain Python data
(dict/list/str/int/float/bool/None, dates); mapping keys are always the text written
(``1:`` is the key ``"1"``); every mapping value, mapping key and list item has its
``line:column`` in a side table (``Positions``), so a ``Node`` knows where any child is.

Limits, each a ``YamlError`` at the place that crosses it:

- ``MAX_DEPTH``: mappings and lists nest at most 100 levels, counting levels reached through
  aliases (an explicit limit, never a ``RecursionError``).
- Aliases (``*name``) reuse a value without copying it, but whatever later walks the data sees
  every copy. Per document, the values reached through aliases may add at most
  ``ALIAS_NODES_MIN`` (10,000) plus as many values as the document writes, and at most
  ``ALIAS_CHARS_MIN`` (1,000,000) plus as many characters of text as the document has. A
  "billion laughs" alias bomb stops at the alias that crosses the budget.
- Tags other than the standard scalar ones (``!!binary``, ``!!set``, ``!foo``...) are refused.

ruamel's composer (safe, pure Python) gives a start mark for every node; building the values
here is about a third faster than ruamel's round-trip loader and needs no comment handling.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, ScalarEvent
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.nodes import Node as YNode

from autocue.errors import AutocueError

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists (the top-level mapping is level 1)."""

ALIAS_NODES_MIN = 10_000
"""Values aliases may always add to a document (the budget is this plus the values written)."""

ALIAS_CHARS_MIN = 1_000_000
"""Characters of text aliases may always add (the budget is this plus the document's length)."""


@dataclass(frozen=True, slots=True)
class Pos:
    """A place in a file; ``line`` and ``col`` are 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def short(self) -> str:
        """``file:line``, the form used in ``source`` fields of compiled scenario steps."""
        return f"{self.file}:{self.line}"


class YamlError(AutocueError, ValueError):
    """A YAML text autocue cannot read: ``str(err)`` is ``file:line:col: message``. Callers
    re-raise it as their own error from ``message`` and ``pos``."""

    def __init__(self, message: str, pos: Pos) -> None:
        self.message = message
        self.pos = pos
        super().__init__(f"{pos}: {message}")

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"

Mark = tuple[int, int]


class Positions:
    """Where each child of each container of one document starts (1-based line, column)."""

    __slots__ = ("file", "keys", "values")

    def __init__(self, file: str) -> None:
        self.file = file
        self.values: dict[int, dict[Any, Mark]] = {}
        self.keys: dict[int, dict[Any, Mark]] = {}

    def key_pos(self, container: Any, key: Any) -> Pos | None:
        """Where ``key`` of the mapping ``container`` (a value of this document) is written."""
        mark = self.keys.get(id(container), {}).get(key)
        return Pos(self.file, *mark) if mark is not None else None

    def value_pos(self, container: Any, key: Any) -> Pos | None:
        """Where the value under ``key`` (an index for a list) of ``container`` starts."""
        mark = self.values.get(id(container), {}).get(key)
        return Pos(self.file, *mark) if mark is not None else None


class Node:
    """A value in a YAML document with its path (``timeline[3].think``) and position."""

    __slots__ = ("path", "pos", "positions", "v")

    def __init__(self, v: Any, path: str, pos: Pos, positions: Positions | None = None) -> None:
        self.v = v
        self.path = path
        self.pos = pos
        self.positions = positions
        """The position table of this node's document."""

    @property
    def is_map(self) -> bool:
        return isinstance(self.v, dict)

    @property
    def is_seq(self) -> bool:
        return isinstance(self.v, list)

    def key_names(self) -> list[str]:
        return list(self.v)

    def __contains__(self, key: str) -> bool:
        return key in self.v

    def key(self, k: str) -> Node:
        """The value under key ``k`` (which must exist)."""
        p = self.positions
        return Node(self.v[k], self.key_path(k), self._mark(p.values if p else None, k), p)

    def get(self, *names: str) -> Node | None:
        """The first of ``names`` present, as a node (``None`` if absent)."""
        for k in names:
            if k in self.v:
                return self.key(k)
        return None

    def key_pos(self, k: str) -> Pos:
        return self._mark(self.positions.keys if self.positions else None, k)

    def key_path(self, k: str) -> str:
        return f"{self.path}.{k}" if self.path else str(k)

    def items(self) -> Iterator[Node]:
        v = self.v
        table = self.positions.values if self.positions else None
        for i in range(len(v)):
            yield Node(v[i], f"{self.path}[{i}]", self._mark(table, i), self.positions)

    def without(self, key: str) -> Node:
        """The same mapping without ``key`` (positions kept)."""
        clone = {k: x for k, x in self.v.items() if k != key}
        p = self.positions
        if p is not None:
            for table in (p.values, p.keys):
                src = table.get(id(self.v))
                if src is not None:
                    table[id(clone)] = src
        return Node(clone, self.path, self.pos, p)

    def _mark(self, table: dict[int, dict[Any, Mark]] | None, k: Any) -> Pos:
        if table is not None:
            marks = table.get(id(self.v))
            if marks is not None and k in marks:
                line, col = marks[k]
                return Pos(self.pos.file, line, col)
        return self.pos


class _Alias:
    """An alias (``*name``) in a composed document: the anchored node and where the alias is."""

    __slots__ = ("mark", "node")

    def __init__(self, node: YNode, mark: Mark) -> None:
        self.node = node
        self.mark = mark


class _TooDeep(Exception):
    """Raised by the composer past ``MAX_DEPTH``; ``parse_documents`` turns it into a ``YamlError``."""

    def __init__(self, line: int, col: int) -> None:
        super().__init__(line, col)
        self.line = line
        self.col = col


class _Composer(Composer):  # type: ignore[misc]
    """ruamel's composer, plus: alias sites kept (``_Alias``), nodes counted, nesting bounded."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader=loader)
        self.warn_double_anchors = False  # YAML allows re-defining an anchor; the latest one wins
        self.written = 0
        self.level = 0

    def compose_document(self) -> Any:
        self.written = 0
        self.level = 0
        return super().compose_document()

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            m = self.parser.peek_event().start_mark
            return _Alias(super().compose_node(parent, index), (m.line + 1, m.column + 1))
        self.written += 1
        self.level += 1
        if self.level > MAX_DEPTH and not self.parser.check_event(ScalarEvent):  # containers count, not leaves
            m = self.parser.peek_event().start_mark
            raise _TooDeep(m.line + 1, m.column + 1)
        node = super().compose_node(parent, index)
        self.level -= 1
        return node


class _Builder:
    """Plain data from composed nodes, recording child positions in ``Positions``.

    An alias reuses its anchor's value (built once), but what it stands for is counted against
    the document's alias budget (``limits``) and its depth against ``MAX_DEPTH``.
    """

    def __init__(self, yaml: YAML, positions: Positions, written: int, chars: int) -> None:
        self.constructor = yaml.constructor
        self.p = positions
        self.done: dict[int, Any] = {}
        """Containers already built, by node: an alias reuses its anchor's value (no blow-up)."""
        self.building: set[int] = set()
        self.size: dict[int, tuple[int, int, int]] = {}
        """Per built container: (values, characters of text, levels) it stands for, aliases expanded."""
        self.level = 0
        self.alias_nodes = 0
        self.alias_chars = 0
        self.max_nodes = ALIAS_NODES_MIN + written
        self.max_chars = ALIAS_CHARS_MIN + chars

    def build(self, n: YNode | _Alias) -> Any:
        if isinstance(n, _Alias):
            return self.alias(n)
        key = id(n)
        if key in self.done:
            return self.done[key]
        if isinstance(n, ScalarNode):
            return self.scalar(n)
        self.building.add(key)
        self.level += 1
        value = self.container(n)
        self.level -= 1
        self.building.discard(key)
        self.done[key] = value
        return value

    def alias(self, a: _Alias) -> Any:
        n = a.node
        where = Pos(self.p.file, *a.mark)
        if id(n) in self.building:
            raise YamlError("invalid YAML: an alias refers to a value that contains it (recursive anchor)", where)
        value = self.build(n)
        nodes, chars, levels = self.measure(n)
        self.alias_nodes += nodes
        self.alias_chars += chars
        if self.alias_nodes > self.max_nodes or self.alias_chars > self.max_chars:
            raise YamlError(
                f"aliases expand to too much: up to this alias they stand for {self.alias_nodes:,} values and "
                f"{self.alias_chars:,} characters, over this document's budget of {self.max_nodes:,} values and "
                f"{self.max_chars:,} characters (a YAML alias bomb?); write the repeated parts out or use fewer "
                "aliases",
                where,
            )
        if self.level + levels > MAX_DEPTH:
            raise YamlError(_too_deep(" through this alias"), where)
        return value

    def measure(self, n: YNode | _Alias) -> tuple[int, int, int]:
        """(values, characters, container levels) that ``n`` stands for once expanded (built already)."""
        if isinstance(n, _Alias):
            n = n.node
        if isinstance(n, ScalarNode):
            return 1, len(n.value), 0
        return self.size[id(n)]

    def scalar(self, n: ScalarNode) -> Any:
        tag = str(n.tag)
        if tag == _STR:
            return n.value
        kind = _SCALAR_KINDS.get(tag)
        if kind is None:
            raise YamlError(_tag_problem(tag), _where(self.p.file, n))
        try:
            v = self.constructor.construct_object(n, deep=True)
        except (YAMLError, ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
            why = f" ({_reason(e)})" if isinstance(e, ValueError) and not isinstance(e, YAMLError) else ""
            raise YamlError(f"cannot read {_shorten(n.value)!r} as {kind}{why}: write a valid value, "
                                "or quote it to make it a string", _where(self.p.file, n)) from None
        if isinstance(v, float) and not math.isfinite(v):
            raise YamlError(f"{_shorten(n.value)!r} is not a finite number: write a number, or quote it to make "
                                "it a string", _where(self.p.file, n))
        return v

    def key(self, k: YNode | _Alias) -> str:
        """A mapping key: a scalar, always read as the text written (``1:`` is the key ``"1"``)."""
        n = k.node if isinstance(k, _Alias) else k
        if not isinstance(n, ScalarNode):
            raise YamlError("a mapping key must be a plain value, not a mapping or list", _where(self.p.file, k))
        self.build(k)  # the same checks as a value (tags, alias budget)
        return str(n.value)

    def container(self, n: YNode) -> Any:
        tag = str(n.tag)
        if isinstance(n, SequenceNode):
            if tag != _SEQ:
                raise YamlError(_tag_problem(tag), _where(self.p.file, n))
            out: list[Any] = []
            marks: dict[Any, Mark] = {}
            nodes, chars, levels = 1, 0, 0
            for i, child in enumerate(n.value):
                out.append(self.build(child))
                marks[i] = _mark(child)
                c_nodes, c_chars, c_levels = self.measure(child)
                nodes, chars, levels = nodes + c_nodes, chars + c_chars, max(levels, c_levels)
            self.p.values[id(out)] = marks
            self.size[id(n)] = (nodes, chars, levels + 1)
            return out
        if isinstance(n, MappingNode):
            if tag != _MAP:
                raise YamlError(_tag_problem(tag), _where(self.p.file, n))
            return self.mapping(n)
        raise YamlError(f"unsupported YAML node {type(n).__name__}", _where(self.p.file, n))  # pragma: no cover

    def mapping(self, n: MappingNode) -> dict[str, Any]:
        d: dict[str, Any] = {}
        vmarks: dict[Any, Mark] = {}
        kmarks: dict[Any, Mark] = {}
        merges: list[YNode | _Alias] = []
        nodes, chars, levels = 1, 0, 0
        for knode, vnode in n.value:
            if not isinstance(knode, _Alias) and str(knode.tag) == _MERGE:
                target = vnode.node if isinstance(vnode, _Alias) else vnode
                merges.extend(target.value if isinstance(target, SequenceNode) else [vnode])
                continue
            key = self.key(knode)
            if key in d:
                raise YamlError(f"invalid YAML: duplicate key {key!r} (first at line {kmarks[key][0]}); "
                                "keep one of them", _where(self.p.file, knode))
            d[key] = self.build(vnode)
            vmarks[key] = _mark(vnode)
            kmarks[key] = _mark(knode)
            for c_nodes, c_chars, c_levels in (self.measure(knode), self.measure(vnode)):
                nodes, chars, levels = nodes + c_nodes, chars + c_chars, max(levels, c_levels)
        for m in merges:  # `<<: *anchor`: merged keys never override explicit ones
            target = m.node if isinstance(m, _Alias) else m
            if not isinstance(target, MappingNode):
                raise YamlError("`<<` merges a mapping or a list of mappings", _where(self.p.file, m))
            merged = self.build(m)
            c_nodes, c_chars, c_levels = self.measure(m)
            nodes, chars, levels = nodes + c_nodes, chars + c_chars, max(levels, c_levels - 1)
            src_v, src_k = self.p.values.get(id(merged), {}), self.p.keys.get(id(merged), {})
            for k, v in merged.items():
                if k not in d:
                    d[k] = v
                    vmarks[k] = src_v.get(k, _mark(m))
                    kmarks[k] = src_k.get(k, _mark(m))
        self.p.values[id(d)] = vmarks
        self.p.keys[id(d)] = kmarks
        self.size[id(n)] = (nodes, chars, levels + 1)
        return d


_SCALAR_KINDS = {
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:timestamp": "a date",
}
"""Scalar tags the loader reads as typed values (``!!str`` is kept as written)."""

_TAG_HINTS = {
    "binary": "binary data (!!binary) is not supported: write base64 text as a string (a scenario repo file "
              "takes `contents: {base64: ...}`)",
    "set": "YAML sets (!!set) are not supported: write a list",
    "omap": "ordered mappings (!!omap) are not supported: write a mapping",
    "pairs": "YAML pairs (!!pairs) are not supported: write a mapping or a list of mappings",
}


def _tag_problem(tag: str) -> str:
    short = tag.removeprefix("tag:yaml.org,2002:")
    if short in _TAG_HINTS:
        return _TAG_HINTS[short]
    shown = "!!" + short if short != tag else tag
    return (f"unsupported YAML tag {shown}: remove it (autocue's YAML files use plain mappings, lists, strings, "
            "numbers, true/false and null)")


def _too_deep(how: str = "") -> str:
    return (f"the document nests mappings and lists more than {MAX_DEPTH} levels deep{how}: "
            "flatten it (deeper nesting is not supported)")


def _reason(e: Exception) -> str:
    return _shorten(str(e).split("\n")[0], 80)


def _shorten(s: str, limit: int = 40) -> str:
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _mark(n: YNode | _Alias) -> Mark:
    if isinstance(n, _Alias):
        n = n.node
    m = n.start_mark
    return (m.line + 1, m.column + 1)


def _where(file: str, n: YNode | _Alias) -> Pos:
    """Where ``n`` is written: the alias itself for an alias."""
    return Pos(file, *(n.mark if isinstance(n, _Alias) else _mark(n)))


def _in_text(text: str, line: int, col: int) -> Mark:
    """``line``:``col`` kept inside ``text``: the end of the stream (past the last line break) is
    the end of the last line, so an error there names a line the file has."""
    lines = text.splitlines()
    if line <= len(lines):
        return line, col
    if not lines:
        return 1, 1
    return len(lines), len(lines[-1]) + 1


def parse_documents(text: str, file: str) -> list[Node]:
    """Parse every YAML document in ``text``; raise ``YamlError`` on a syntax error or a limit."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Composer = _Composer
    out: list[Node] = []
    try:
        for root in yaml.compose_all(text):
            if root is None:
                continue
            positions = Positions(file)
            value = _Builder(yaml, positions, yaml.composer.written, len(text)).build(root)
            out.append(Node(value, "", _where(file, root), positions))
    except _TooDeep as e:
        raise YamlError(_too_deep(), Pos(file, e.line, e.col)) from None
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = _in_text(text, mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise YamlError(
            f"invalid YAML: {problem or e}. Fix the syntax at this position (check indentation, quotes and brackets).",
            Pos(file, line, col),
        ) from None
    except YAMLError as e:
        raise YamlError(f"invalid YAML: {e}", Pos(file, 1, 1)) from None
    return out


def parse_document(text: str, file: str) -> Node | None:
    """The one YAML document of ``text`` (None when there is none); a second one is a ``YamlError``."""
    docs = parse_documents(text, file)
    if len(docs) > 1:
        raise YamlError("this file holds more than one YAML document (a second `---`): keep one", docs[1].pos)
    return docs[0] if docs else None


def plain(v: Any) -> Any:
    """A deep copy of plain YAML data (dates become ISO strings)."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (type(None), "null"), (bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
    (dict, "a mapping"), (list, "a list"),
)
"""In the order ``type_name`` tries them (``bool`` before ``int``, its base class)."""


def type_name(v: Any) -> str:
    """The YAML-ish name of a value's type, for error messages."""
    for t, name in _TYPE_NAMES:
        if isinstance(v, t):
            return name
    return type(v).__name__


__all__ = [
    "ALIAS_CHARS_MIN", "ALIAS_NODES_MIN", "MAX_DEPTH", "Node", "Pos", "Positions", "YamlError", "parse_document",
    "parse_documents", "plain", "type_name",
]
