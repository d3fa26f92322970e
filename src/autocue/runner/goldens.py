"""Screenshot goldens: where they live, masking, comparing, writing.

A golden lives next to its scenario, where it is committed:
``<scenario dir>/goldens/<runner>/<scenario>/<terminal>/screenshots/<LABEL>.golden``. With a
golden, the masked screen must equal it; otherwise the golden stays as it was, the screen is
written into the run's own folder as ``<run dir>/screenshots/<LABEL>.actual`` (never into the
committed tree) and the failure carries a unified diff. With no golden, the screen becomes one
(``new``), except in CI mode (``ci=True``), where a missing golden is a failure (``missing``: the
screen goes to the ``.actual`` file) and nothing is written next to the scenario;
``update=True`` writes or rewrites it in both modes.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autocue.runner.extras import Mask


def apply_masks(text: str, masks: Sequence[Mask], literals: Sequence[tuple[str, str]] = ()) -> str:
    for value, label in literals:
        if value:
            text = text.replace(value, label)
    for m in masks:
        text = m.apply(text)
    return text


WRITTEN = ("new", "updated")
COMPARED = ("match", "differs")
FAILED = ("differs", "missing")


@dataclass(frozen=True, slots=True)
class GoldenResult:
    label: str
    golden: Path
    """The golden file, next to the scenario (it does not exist when ``status`` is ``missing``)."""
    status: str
    """``new`` (written), ``updated`` (rewritten), ``match``, ``differs`` or ``missing`` (CI mode, none written)."""
    actual: Path | None = None
    """The screen, in the run's folder, when it is not the golden's (``differs``, ``missing``)."""
    diff: str = ""

    @property
    def path(self) -> Path:
        """The screen's file: the ``.actual`` one when there is one, else the golden."""
        return self.actual if self.actual is not None else self.golden

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "status": self.status, "golden": str(self.golden),
                "actual": str(self.actual) if self.actual is not None else None}


def golden_dir(scenario_file: str, runner: str, scenario: str, terminal: str) -> Path:
    """The folder of a scenario's goldens for one runner and terminal, next to the scenario file."""
    return (Path(scenario_file).resolve().parent / "goldens" / runner / safe_name(scenario) / safe_name(terminal)
            / "screenshots")


def existing_golden(label: str, folder: Path) -> str | None:
    """The text of ``label``'s golden in ``folder``, or None."""
    g = folder / f"{safe_name(label)}.golden"
    return g.read_text(encoding="utf-8") if g.is_file() else None


def check_golden(label: str, screen: str, *, golden_dir: Path, actual_dir: Path, update: bool,
                 ci: bool = False) -> GoldenResult:
    """Compare ``screen`` with ``label``'s golden in ``golden_dir``; a screen that is not the golden's is
    written to ``actual_dir``."""
    text = screen + "\n"
    name = safe_name(label)
    g = golden_dir / f"{name}.golden"
    want = g.read_text(encoding="utf-8") if g.is_file() else None
    if want == text:
        return GoldenResult(label, g, "match")
    if update or (want is None and not ci):
        g.parent.mkdir(parents=True, exist_ok=True)
        g.write_text(text, encoding="utf-8")
        return GoldenResult(label, g, "new" if want is None else "updated")
    actual = actual_dir / f"{name}.actual"
    actual.parent.mkdir(parents=True, exist_ok=True)
    actual.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff((want or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=str(g) if want is not None else "/dev/null", tofile=str(actual)))
    return GoldenResult(label, g, "differs" if want is not None else "missing", actual, diff)


def safe_name(name: str) -> str:
    """``name`` as one path component (other characters than letters, digits and ``-_.@`` become ``_``)."""
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in name) or "_"
