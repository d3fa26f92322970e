"""Cells of a run: scenarios × agents × wire APIs × modes, from a ``matrix:`` file or the axis flags.

A **cell** is one scenario run by one launch profile (``agent``), over one wire API (``api``, the
``--llm-api`` style) in one mode (``via``: ``print``, ``tui``, ...); an axis left out keeps what the
scenario and the other flags say. Its ``id`` is stable across runs and machines::

    scenarios/greet.yaml::greet                                  # no axis
    scenarios/greet.yaml::greet[agent=claude,api=anthropic,via=tui]

(the file relative to the current directory when it is inside it, ``/``-separated). A matrix file::

    matrix:
      scenarios: ["scenarios/**/*.yaml"]     # globs or paths, relative to the matrix file
      agents: [claude, codex]
      apis: [openai, anthropic]
      modes: [print, tui]
      exclude:
        - {agent: codex, api: anthropic}      # every key given must match: agent, api, mode,
        - {scenario: "scenarios/slow/*", mode: tui}   # scenario (a glob of the file), name (of the scenario)

``split(cells, n, durations)`` is ``--shard I/N`` over cells: pytest-split's least-duration split
when recorded durations are given (``autocue.runner.jobs.durations_of``), else a round-robin by id. See
docs/scale.md, "Matrices and shards".
"""

from __future__ import annotations

import dataclasses
import fnmatch
import heapq
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue.runner.errors import MatrixError
from autocue.yamlpos import Node, Pos, YamlError, parse_document

if TYPE_CHECKING:
    from autocue.runner.options import RunOptions
    from autocue.runner.selection import Selected

AXES = ("agent", "api", "via")
"""A cell's axes, in the order its id names them."""
MATRIX_KEYS = {"scenarios": "scenarios", "agents": "agent", "apis": "api", "modes": "via", "exclude": ""}
EXCLUDE_KEYS = ("agent", "api", "mode", "scenario", "name")


def shown_path(file: str) -> str:
    """A scenario file as a cell id names it: relative to the current directory when inside it, ``/``-separated."""
    p = Path(file)
    try:
        return p.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.resolve().as_posix()


@dataclass(frozen=True, slots=True, eq=False)
class Cell:
    selected: Selected
    agent: str | None = None
    api: str | None = None
    via: str | None = None
    file: str = field(init=False)
    """The scenario file as the id names it (``shown_path``)."""
    id: str = field(init=False)
    """The stable id: ``FILE::NAME`` and, when the cell sets an axis, ``[agent=...,api=...,via=...]``."""

    def __post_init__(self) -> None:
        file = shown_path(self.selected.scenario.file)
        axes = ",".join(f"{k}={v}" for k, v in zip(AXES, (self.agent, self.api, self.via), strict=True) if v)
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "id", f"{file}::{self.name}" + (f"[{axes}]" if axes else ""))

    @property
    def name(self) -> str:
        return self.selected.scenario.name

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "file": self.file, "name": self.name, "agent": self.agent, "api": self.api,
                "via": self.via}

    def options(self, base: RunOptions) -> RunOptions:
        """``base`` with this cell's axes (an axis the cell leaves out keeps ``base``'s)."""
        changes: dict[str, Any] = {}
        if self.agent:
            changes.update(agent=self.agent, cmd=None)
        if self.api:
            changes["llm_api"] = self.api
        if self.via:
            changes["via"] = self.via
        return dataclasses.replace(base, **changes) if changes else base


def check_via(vias: Sequence[str | None]) -> None:
    """Each mode is one the runner drives agents in (``print``, ``tui``, ``acp``), else a ``MatrixError``."""
    from autocue.runner.options import VIAS

    bad = [v for v in vias if v is not None and v not in VIAS]
    if bad:
        raise MatrixError(f"mode {bad[0]!r} is not one of {', '.join(VIAS)}")


def cells_of(items: Sequence[Selected], *, agents: Sequence[str | None] = (None,), apis: Sequence[str | None] = (None,),
             vias: Sequence[str | None] = (None,), exclude: Sequence[dict[str, str]] = ()) -> list[Cell]:
    """Every cell of ``items`` × the axes (in the order given), sorted by scenario (file, name, line), less the
    excluded ones."""
    check_via(vias)
    ordered = sorted(items, key=lambda s: (shown_path(s.scenario.file), s.scenario.name, s.scenario.pos.line))
    out = [Cell(s, a, p, v) for s in ordered for a in agents or (None,) for p in apis or (None,)
           for v in vias or (None,)]
    return [c for c in out if not any(_excluded(c, e) for e in exclude)]


def _excluded(c: Cell, rule: dict[str, str]) -> bool:
    from autocue.globs import path_matches

    for key, want in rule.items():
        if key == "scenario":  # a relative glob matches the end of the path (the matrix file's own folder, cwd...)
            pats = [want] if want.startswith(("/", "**")) else [want, "**/" + want]
            if not path_matches(c.file, pats):
                return False
        elif key == "name":
            if not fnmatch.fnmatchcase(c.name, want):
                return False
        elif getattr(c, "via" if key == "mode" else key) != want:
            return False
    return True


def axis(text: str | None) -> list[str | None]:
    """A comma list flag (``--agent claude,codex``) as an axis; ``[None]`` when not given."""
    if not text:
        return [None]
    values = [x.strip() for x in text.split(",") if x.strip()]
    return list(dict.fromkeys(values)) or [None]


@dataclass(slots=True)
class Matrix:
    """A parsed ``matrix:`` file."""

    file: Path
    scenarios: list[Path]
    """The scenario files and directories its globs name (in order, each once)."""
    agents: list[str | None]
    apis: list[str | None]
    vias: list[str | None]
    exclude: list[dict[str, str]]


def load_matrix(path: str | Path) -> Matrix:
    """Read a matrix file (raises ``MatrixError`` with ``file:line:col``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MatrixError(f"{p}: no such matrix file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise MatrixError(f"{p}: cannot read the matrix file ({e})") from None
    try:
        doc = parse_document(text, str(p))
    except YamlError as e:
        raise MatrixError(str(e)) from None
    if doc is None or not doc.is_map or "matrix" not in doc:
        raise MatrixError(f"{doc.pos if doc else Pos(str(p), 1, 1)}: a matrix file is a mapping with one key "
                          "`matrix:` (scenarios, agents, apis, modes, exclude)")
    for k in doc.key_names():
        if k != "matrix":
            raise MatrixError(f"{doc.key_pos(k)}: unknown key {k!r}: a matrix file has only `matrix:`")
    m = doc.key("matrix")
    if not m.is_map:
        raise MatrixError(f"{m.pos}: matrix: expected a mapping of scenarios, agents, apis, modes, exclude")
    for k in m.key_names():
        if k not in MATRIX_KEYS:
            raise MatrixError(f"{m.key_pos(k)}: matrix.{k}: unknown key; expected one of {', '.join(MATRIX_KEYS)}")
    if "scenarios" not in m:
        raise MatrixError(f"{m.pos}: matrix: `scenarios:` is missing: give globs of scenario files, "
                          "e.g. scenarios: [\"scenarios/**/*.yaml\"]")
    base = p.parent
    found: list[Path] = []
    for node in _strings(m.key("scenarios")):
        matches = _glob(base, node.v)
        if not matches:
            raise MatrixError(f"{node.pos}: matrix.scenarios: {node.v!r} matches no scenario file or directory "
                              f"(relative to {base or '.'})")
        found.extend(x for x in matches if x not in found)
    axes: dict[str, list[str | None]] = {k: [str(n.v) for n in _strings(m.key(k))] if k in m else [None]
                                         for k in ("agents", "apis", "modes")}
    exclude: list[dict[str, str]] = []
    if "exclude" in m:
        ex = m.key("exclude")
        if not ex.is_seq:
            raise MatrixError(f"{ex.pos}: matrix.exclude: expected a list of mappings, "
                              "e.g. - {agent: codex, api: gemini}")
        for rule in ex.items():
            if not rule.is_map or not rule.v:
                raise MatrixError(f"{rule.pos}: {rule.path}: expected a mapping of {', '.join(EXCLUDE_KEYS)}")
            for k in rule.key_names():
                if k not in EXCLUDE_KEYS:
                    raise MatrixError(f"{rule.key_pos(k)}: {rule.key_path(k)}: unknown key; expected one of "
                                      f"{', '.join(EXCLUDE_KEYS)}")
                if not isinstance(rule.v[k], str):
                    raise MatrixError(f"{rule.key(k).pos}: {rule.key_path(k)}: expected a string")
            exclude.append(dict(rule.v))
    return Matrix(p, found, axes["agents"], axes["apis"], axes["modes"], exclude)


def _strings(node: Node) -> list[Node]:
    items = list(node.items()) if node.is_seq else [node]
    for n in items:
        if not isinstance(n.v, str) or not n.v.strip():
            raise MatrixError(f"{n.pos}: {n.path}: expected a non-empty string (or a list of them)")
    return items


def _glob(base: Path, pattern: str) -> list[Path]:
    import glob as stdglob

    root = base / pattern
    if root.exists():
        return [root]
    return [Path(x) for x in sorted(stdglob.glob(str(root), recursive=True))
            if Path(x).is_dir() or Path(x).suffix in (".yaml", ".yml")]


def split(cells: Sequence[Cell], n: int, durations: dict[str, float] | None = None) -> list[list[Cell]]:
    """``n`` groups of ``cells``, each in the cells' order. With ``durations`` (seconds by cell id): pytest-split's
    least-duration algorithm (longest first, each to the group with the least total; a cell with no recorded
    duration counts as the mean of the others); without: a round-robin over the cells sorted by id."""
    groups: list[list[tuple[int, Cell]]] = [[] for _ in range(n)]
    if durations:
        known = [d for c in cells if (d := _duration(c, durations)) is not None]
        mean = sum(known) / len(known) if known else 1.0
        timed = [(_duration(c, durations), i, c) for i, c in enumerate(cells)]
        heap = [(0.0, g) for g in range(n)]
        by_id = sorted(timed, key=lambda t: t[2].id)  # ties: by id, as pytest-split (by name)
        for d, i, c in sorted(by_id, key=lambda t: -(t[0] if t[0] is not None else mean)):
            total, g = heapq.heappop(heap)
            groups[g].append((i, c))
            heapq.heappush(heap, (total + (d if d is not None else mean), g))
    else:
        for k, (i, c) in enumerate(sorted(enumerate(cells), key=lambda t: t[1].id)):
            groups[k % n].append((i, c))
    return [[c for _, c in sorted(g, key=lambda t: t[0])] for g in groups]


def _duration(c: Cell, durations: dict[str, float]) -> float | None:
    return durations.get(c.id, durations.get(f"{c.file}::{c.name}"))


def list_lines(cells: Iterable[Cell], as_json: bool) -> str:
    """``--list``: one id per line, or (``--json``) a JSON array of ``Cell.to_json`` objects."""
    cells = list(cells)
    if as_json:
        return json.dumps([c.to_json() for c in cells])
    return "\n".join(c.id for c in cells)


__all__ = ["AXES", "Cell", "Matrix", "axis", "cells_of", "check_via", "list_lines", "load_matrix",
           "shown_path", "split"]
