"""Which scenarios a run executes: files and directories, ``--tags``, ``-k``, ``--shard I/N``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autocue.runner.extras import RunnerExtras
from autocue.scenario import Pos, Scenario, ScenarioError, load_scenario_texts, read_scenario_file, scenario_files


@dataclass(slots=True)
class Selected:
    scenario: Scenario
    extras: RunnerExtras

    @property
    def id(self) -> str:
        return f"{self.scenario.file}::{self.scenario.name}"


def load_path(path: str | Path) -> list[Selected]:
    """Every scenario of a file or of a directory's ``*.yaml``/``*.yml`` (raises ``ScenarioError``)."""
    p = Path(path)
    if not p.exists():
        raise ScenarioError("no such scenario file or directory", Pos(str(p), 1, 1))
    out: list[Selected] = []
    for f in scenario_files(p):
        out.extend(Selected(s, s.runner) for s in load_scenario_texts(read_scenario_file(f), str(f)))
    return out


def parse_shard(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(m.group(1)), int(m.group(2))


def select(items: Sequence[Selected], *, tags: Sequence[str] = (), keyword: str | None = None,
           shard: tuple[int, int] | None = None) -> list[Selected]:
    """Filter by tags (any of them) and name substring, then take shard ``I`` of ``N``.

    Shards are a round-robin over the selection sorted by file and name, so the same inputs
    always split the same way and the shards together are the whole selection.
    """
    chosen = [s for s in items
              if (not tags or set(tags) & set(s.scenario.tags))
              and (keyword is None or keyword.lower() in s.scenario.name.lower())]
    if shard is not None:
        i, n = shard
        ordered = sorted(chosen, key=lambda s: (s.scenario.file, s.scenario.name, s.scenario.pos.line))
        keep = {id(s) for k, s in enumerate(ordered) if k % n == i - 1}
        chosen = [s for s in chosen if id(s) in keep]
    return chosen
