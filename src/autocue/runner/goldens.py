"""Screenshot goldens: where they live, masking, comparing, writing.

A screenshot is saved as ``<out>/<runner>/<scenario>/<terminal>/screenshots/<LABEL>.golden``.
A golden next to the scenario (``<scenario dir>/goldens/<runner>/<scenario>/<terminal>/
screenshots/<LABEL>.golden``) takes precedence over one in the output dir. With a golden, the
masked screen must equal it; otherwise the golden stays as it was, the screen is written beside
it as ``<LABEL>.actual`` and the failure carries a unified diff. With no golden, the screen
becomes one; ``update=True`` rewrites it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autocue.runner.extras import Mask


def apply_masks(text: str, masks: Sequence[Mask], literals: Sequence[tuple[str, str]] = ()) -> str:
    for value, label in literals:
        if value:
            text = text.replace(value, label)
    for m in masks:
        text = m.apply(text)
    return text


@dataclass(frozen=True, slots=True)
class GoldenResult:
    label: str
    path: Path
    """The golden (or the ``.actual`` written on a mismatch)."""
    status: str
    """``new``, ``match``, ``updated`` or ``differs``."""
    diff: str = ""


def golden_dirs(out: Path, scenario_file: str, runner: str, scenario: str, terminal: str) -> tuple[Path, Path]:
    rel = Path(runner) / safe_name(scenario) / safe_name(terminal) / "screenshots"
    return out / rel, Path(scenario_file).resolve().parent / "goldens" / rel


def _golden(label: str, out_dir: Path, beside: Path) -> Path | None:
    """``label``'s golden file: next to the scenario first, then in the output dir (None: neither)."""
    name = safe_name(label)
    return next((g for d in (beside, out_dir) if (g := d / f"{name}.golden").is_file()), None)


def existing_golden(label: str, *, out_dir: Path, beside: Path) -> str | None:
    """The text of ``label``'s golden, or None."""
    g = _golden(label, out_dir, beside)
    return g.read_text(encoding="utf-8") if g is not None else None


def check_golden(label: str, screen: str, *, out_dir: Path, beside: Path, update: bool) -> GoldenResult:
    text = screen + "\n"
    g = _golden(label, out_dir, beside)
    if g is None:
        g = out_dir / f"{safe_name(label)}.golden"
        g.parent.mkdir(parents=True, exist_ok=True)
        g.write_text(text, encoding="utf-8")
        return GoldenResult(label, g, "new")
    want = g.read_text(encoding="utf-8")
    actual = g.with_suffix(".actual")
    if want == text:
        actual.unlink(missing_ok=True)  # ours, from an earlier mismatch
        return GoldenResult(label, g, "match")
    if update:
        g.write_text(text, encoding="utf-8")
        actual.unlink(missing_ok=True)
        return GoldenResult(label, g, "updated")
    actual.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff(want.splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=str(g), tofile=str(actual)))
    return GoldenResult(label, actual, "differs", diff)


def safe_name(name: str) -> str:
    """``name`` as one path component (other characters than letters, digits and ``-_.@`` become ``_``)."""
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in name) or "_"
