"""Turning what a user hands the server into ``Playable`` scripts.

Accepted: a ``Script``; a loaded scenario (anything with ``.compile() -> Script``, ``.name``
and ``.warnings``); a path to a scenario YAML file or a directory of them (loaded with
``autocue.scenario``); or a list of any of these.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autocue.errors import AutocueError
from autocue.mockllm.session import Playable
from autocue.scenario import load_scenario, load_scenarios
from autocue.script.model import Script

Source = Any
"""A ``Script``, a scenario, a path (str / Path) or an iterable of these."""


class ScenarioSourceError(AutocueError, ValueError):
    """A scenario source could not be loaded (names the path and the loader's reason)."""


def load_playables(src: Source) -> list[Playable]:
    if isinstance(src, Playable):
        return [src]
    if isinstance(src, Script):
        return [Playable(src)]
    if isinstance(src, (str, Path)):
        return _load_path(Path(src))
    compile_ = getattr(src, "compile", None)
    if callable(compile_):
        script = compile_()
        if not isinstance(script, Script):
            raise ScenarioSourceError(f"{src!r}.compile() returned {type(script).__name__}, expected a Script")
        warnings = [str(w) for w in getattr(src, "warnings", None) or []]
        return [Playable(script, name=getattr(src, "name", None) or None, warnings=warnings)]
    if isinstance(src, Iterable):
        out: list[Playable] = []
        for item in src:
            out.extend(load_playables(item))
        return out
    raise ScenarioSourceError(
        f"cannot serve a {type(src).__name__}: give a Script, a scenario, a scenario file or directory path"
    )


def _load_path(path: Path) -> list[Playable]:
    if not path.exists():
        raise ScenarioSourceError(f"scenario path {str(path)!r} does not exist")
    try:
        items = list(load_scenarios(path)) if path.is_dir() else [load_scenario(path)]
    except Exception as e:  # the loader names file:line; keep its message
        raise ScenarioSourceError(f"cannot load scenario {path}: {e}") from e
    out: list[Playable] = []
    for sc in items:
        out.extend(load_playables(sc))
    return out
