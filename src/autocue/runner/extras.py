"""What the runner reads from a scenario beyond the loaded model.

- the terminal profile: ``terminalRef`` (a JSON file next to the scenario with ``name``,
  ``width``, ``height``), overridden by ``--terminal WxH``; default 100x30. Its id is
  ``name`` or ``WxH``.
- top-level ``agent: NAME`` (a launch profile, used when neither ``--cmd``, ``--agent`` nor
  ``ah`` names the program) and ``masks:`` (regex rules applied to screens before they are
  compared with goldens). The loader does not know these keys, so they are read here from the
  YAML document (only when the file mentions them) and their loader warnings are dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.scenario import Pos, Scenario, ScenarioError
from autocue.scenario.yamlsrc import parse_documents

RUNNER_KEYS = ("agent", "masks")
_MENTIONS = re.compile(r"^(?:agent|masks)\s*:", re.M)


@dataclass(frozen=True, slots=True)
class Mask:
    pattern: re.Pattern[str]
    replace: str
    pos: Pos | None = None

    def apply(self, text: str) -> str:
        return self.pattern.sub(self.replace, text)


@dataclass(slots=True)
class RunnerExtras:
    agent: str | None = None
    masks: list[Mask] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TerminalProfile:
    width: int
    height: int
    name: str | None = None

    @property
    def id(self) -> str:
        return self.name or f"{self.width}x{self.height}"


DEFAULT_TERMINAL = TerminalProfile(100, 30)


def parse_size(text: str) -> TerminalProfile:
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m or int(m.group(1)) < 10 or int(m.group(2)) < 2:
        raise ValueError(f"--terminal {text!r}: expected COLUMNSxROWS such as 100x30 (at least 10x2)")
    return TerminalProfile(int(m.group(1)), int(m.group(2)))


def terminal_profile(scenario: Scenario, override: TerminalProfile | None) -> TerminalProfile:
    if override is not None:
        return override
    if not scenario.terminal_ref:
        return DEFAULT_TERMINAL
    path = Path(scenario.file).resolve().parent / scenario.terminal_ref  # an absolute terminalRef stays as it is
    where = f"{scenario.pos}: terminalRef {scenario.terminal_ref!r}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"terminalRef {scenario.terminal_ref!r}: no such file ({path})", scenario.pos) from None
    except (OSError, ValueError) as e:
        raise ScenarioError(f"terminalRef {scenario.terminal_ref!r} is not a JSON file: {e}", scenario.pos) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: expected a JSON object with width and height", scenario.pos)
    w, h, name = data.get("width", 100), data.get("height", 30), data.get("name")
    if not isinstance(w, int) or not isinstance(h, int) or w < 10 or h < 2:
        raise ScenarioError(f"terminalRef {scenario.terminal_ref!r}: width and height must be integers "
                            f"(at least 10 and 2), got {w!r} and {h!r}", scenario.pos)
    return TerminalProfile(w, h, str(name) if name else None)


def read_extras(scenarios: list[Scenario], text: str, file: str) -> list[RunnerExtras]:
    """The runner keys of each document of a file (and drop the loader's warnings about them)."""
    if not _MENTIONS.search(text):
        return [RunnerExtras() for _ in scenarios]
    docs = [d for d in parse_documents(text, file) if d.v is not None]
    out: list[RunnerExtras] = []
    for sc, doc in zip(scenarios, docs, strict=False):
        sc.warnings = [w for w in sc.warnings if w.path not in RUNNER_KEYS]
        ex = RunnerExtras()
        if doc.is_map and (n := doc.get("agent")) is not None and n.v is not None:
            if not isinstance(n.v, str) or not n.v.strip():
                raise ScenarioError("agent: expected a launch profile name (mock, autocue)", n.pos, "agent")
            ex.agent = n.v.strip()
        if doc.is_map and (n := doc.get("masks")) is not None and n.v is not None:
            if not n.is_seq:
                raise ScenarioError("masks: expected a list of regexes or {pattern, replace} objects", n.pos, "masks")
            for item in n.items():
                ex.masks.append(_mask(item.v, item.pos, item.path))
        out.append(ex)
    while len(out) < len(scenarios):
        out.append(RunnerExtras())
    return out


def _mask(v: Any, pos: Pos, path: str) -> Mask:
    if isinstance(v, str):
        pattern, repl = v, "***"
    elif isinstance(v, dict) and isinstance(v.get("pattern"), str):
        pattern, repl = v["pattern"], v.get("replace", "***")
        if not isinstance(repl, str):
            raise ScenarioError("replace: expected a string", pos, path)
    else:
        raise ScenarioError("a mask is a regex string or {pattern: REGEX, replace: TEXT}", pos, path)
    try:
        return Mask(re.compile(pattern), repl, pos)
    except re.error as e:
        raise ScenarioError(f"mask {pattern!r} is not a valid regex: {e}", pos, path) from None
