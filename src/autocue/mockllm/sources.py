"""Turning what a user hands the server into ``Playable`` scripts.

Accepted: a ``Script``; a loaded scenario (anything with ``.compile() -> Script``, ``.name``
and ``.warnings``); a path to a scenario YAML file or a directory of them (loaded with
``autocue.scenario``); or a list of any of these.

Scenario files are read here, not by the loader, so every read is bounded: only regular
files (a device, FIFO or socket is refused before a byte is read, so ``/dev/zero`` cannot
fill memory and a FIFO cannot hang the server) of at most ``MAX_SCENARIO_BYTES``.
``path_roots(source)`` lists the paths a source names: the only places the admin API may
load scenario files from later (``allowed``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autocue.mockllm.errors import ScenarioSourceError as ScenarioSourceError
from autocue.mockllm.session import Playable
from autocue.script.model import Script

Source = Any
"""A ``Script``, a scenario, a path (str / Path) or an iterable of these."""

MAX_SCENARIO_BYTES = 8 * 1024 * 1024
"""The largest scenario file (and posted scenario YAML) the server reads."""


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
        server = getattr(src, "server", None)
        return [Playable(script, name=getattr(src, "name", None) or None, warnings=warnings,
                         recording=_recording(src), embeddings=getattr(server, "embeddings", None),
                         match=getattr(server, "match", None))]
    if isinstance(src, Iterable):
        out: list[Playable] = []
        for item in src:
            out.extend(load_playables(item))
        return out
    raise ScenarioSourceError(
        f"cannot serve a {type(src).__name__}: give a Script, a scenario, a scenario file or directory path"
    )


def _recording(src: Any) -> dict[str, Any] | None:
    """A scenario's ``server.recording`` (what ``autocue record`` wrote), when it is a mapping."""
    extra = getattr(getattr(src, "server", None), "extra", None)
    rec = extra.get("recording") if isinstance(extra, dict) else None
    return rec if isinstance(rec, dict) else None


def load_text(text: str, filename: str) -> list[Playable]:
    """The one scenario in YAML ``text`` (``filename`` is used in positions); nothing is written."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SCENARIO_BYTES:
        raise ScenarioSourceError(f"scenario YAML {filename} is larger than the limit of {MAX_SCENARIO_BYTES} "
                                  "bytes", 413)
    from autocue.scenario import load_scenario_text

    try:
        scenario = load_scenario_text(text, filename)
    except Exception as e:  # the loader names file:line:col; keep its message
        raise ScenarioSourceError(_cannot_load(filename, e)) from e
    return load_playables(scenario)


def path_roots(src: Source) -> list[Path]:
    """Every file or directory path ``src`` names (resolved, symlinks followed)."""
    if isinstance(src, (str, Path)):
        return [Path(src).resolve()]
    if isinstance(src, (Script, Playable, bytes)) or callable(getattr(src, "compile", None)):
        return []
    if isinstance(src, Iterable):
        return [p for item in src for p in path_roots(item)]
    return []


def allowed(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path`` (resolved) is one of ``roots`` or inside a root directory."""
    try:
        real = path.resolve()
    except (OSError, ValueError):  # a NUL byte, a symlink loop
        return False
    return any(real == r or (r.is_dir() and real.is_relative_to(r)) for r in roots)


def scenario_file_paths(path: Path) -> list[Path]:
    """The scenario files ``path`` names: itself, or a directory's ``*.yaml`` / ``*.yml``."""
    if not path.exists():
        raise ScenarioSourceError(f"scenario path {str(path)!r} does not exist")
    if path.is_dir():
        from autocue.scenario import scenario_files

        return scenario_files(path)
    return [path]


def read_scenario_file(path: Path) -> str:
    """The UTF-8 text of a regular file of at most ``MAX_SCENARIO_BYTES``, read without
    blocking on FIFOs and without reading past the limit."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ScenarioSourceError(f"scenario path {str(path)!r} does not exist") from None
    except OSError as e:
        raise ScenarioSourceError(f"cannot read scenario file {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioSourceError(f"scenario path {str(path)!r} is not a regular file ({_kind(st.st_mode)}): "
                                      "give a scenario YAML file or a directory of them")
        if st.st_size > MAX_SCENARIO_BYTES:
            raise ScenarioSourceError(f"scenario file {path} is {st.st_size} bytes, larger than the limit of "
                                      f"{MAX_SCENARIO_BYTES} bytes", 413)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_SCENARIO_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioSourceError(f"scenario file {path} grew past the limit of {MAX_SCENARIO_BYTES} bytes", 413)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioSourceError(f"scenario file {path} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def _cannot_load(filename: str, e: Exception) -> str:
    msg = str(e)
    return f"cannot load scenario {msg if msg.startswith(filename + ':') else filename + ': ' + msg}"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _load_path(path: Path) -> list[Playable]:
    from autocue.scenario import load_scenario_text, load_scenario_texts

    files = scenario_file_paths(path)
    single = files == [path]
    out: list[Playable] = []
    for f in files:
        text = read_scenario_file(f)
        try:
            items = [load_scenario_text(text, str(f))] if single else load_scenario_texts(text, str(f))
        except Exception as e:  # the loader names file:line:col; keep its message
            raise ScenarioSourceError(_cannot_load(str(f), e)) from e
        for sc in items:
            out.extend(load_playables(sc))
    return out
