"""What the runner reads from a scenario beyond the timeline.

- the terminal profile: ``terminalRef`` (a JSON file next to the scenario with ``name``,
  ``width``, ``height``), overridden by ``--terminal WxH``; default 100x30. Its id is
  ``name`` or ``WxH``.
- ``RunnerExtras`` is the scenario's ``runner`` block as the loader read it: top-level ``agent:
  NAME`` (a launch profile, used when neither ``--cmd``, ``--agent`` nor ``ah`` names the program)
  and ``masks:`` (regex rules applied to screens before they are compared with goldens).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from autocue.scenario import Scenario, ScenarioError
from autocue.scenario.model import Mask, RunnerSpec

__all__ = ["DEFAULT_TERMINAL", "Mask", "RunnerExtras", "TerminalProfile", "parse_size", "terminal_profile"]

RunnerExtras = RunnerSpec
"""The scenario's ``runner`` block (``Scenario.runner``): ``agent`` and ``masks``."""


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
