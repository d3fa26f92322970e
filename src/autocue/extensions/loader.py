"""Loading extensions: from file paths, module names, factories, entry points and directories.

An extension is a module with ``def extension(api)`` (sync or async), or any callable
factory taking the ``ExtensionAPI``. Sources, in load order (which is handler order):

1. ``specs`` given explicitly: a ``.py`` file, a package directory (``__init__.py``) or a
   directory with ``index.py``, an importable module name (``pkg.ext``, optionally
   ``pkg.ext:function``), or a callable;
2. ``factories``: callables;
3. with ``discover=True``: the project's ``<cwd>/.autocue/extensions/``, then the user's
   ``$AUTOCUE_DIR/extensions/`` (default ``~/.autocue/extensions/``): each ``*.py`` file and
   each sub-directory with ``__init__.py`` or ``index.py``;
4. with ``discover=True``: the ``autocue.extensions`` entry-point group.

A source that fails (import error, no ``extension`` function, the function raising) becomes a
``LoadError`` with its name, path and traceback; the others still load. The same file is
loaded once. File-based extensions are executed afresh for every load (module state is per
session); module names go through ``importlib`` (shared, like any import).

``load_extensions`` is synchronous: an async ``extension(api)`` is started and its coroutine
kept on ``Extension.pending``; ``finish_loading`` awaits those (the session does so when it binds).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import itertools
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from autocue.extensions.api import EventBus, ExtensionAPI
from autocue.extensions.extension import Extension
from autocue.extensions.runner import ExtensionRunner

ENTRY_POINT_GROUP = "autocue.extensions"
ExtensionFactory = Callable[[ExtensionAPI], Any]
ExtensionSpec = str | os.PathLike[str] | ExtensionFactory

_counter = itertools.count(1)


@dataclass(slots=True)
class LoadError:
    """An extension that could not be loaded."""

    name: str
    path: str
    error: BaseException
    traceback: str

    @property
    def message(self) -> str:
        return f"extension {self.name} ({self.path}) failed to load: {type(self.error).__name__}: {self.error}"

    def __str__(self) -> str:
        return f"{self.message}\n{self.traceback}"


@dataclass(slots=True)
class ExtensionsResult:
    """What loading gave: the extensions that loaded (in order) and the errors of those that did not."""

    extensions: list[Extension] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    runner: ExtensionRunner = field(default_factory=ExtensionRunner)


def default_agent_dir() -> Path:
    """``$AUTOCUE_DIR`` or ``~/.autocue``."""
    env = os.environ.get("AUTOCUE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".autocue"


def discover_extension_paths(directory: Path) -> list[Path]:
    """``*.py`` files and package / ``index.py`` directories directly in ``directory``, sorted."""
    if not directory.is_dir():
        return []
    out: list[Path] = []
    for p in sorted(directory.iterdir()):
        if p.name.startswith((".", "_")):
            continue
        is_pkg = p.is_dir() and ((p / "__init__.py").is_file() or (p / "index.py").is_file())
        if (p.is_file() and p.suffix == ".py") or is_pkg:
            out.append(p)
    return out


def load_extensions(
    specs: Sequence[ExtensionSpec] = (),
    *,
    cwd: str | os.PathLike[str],
    factories: Sequence[ExtensionFactory] = (),
    discover: bool = False,
    agent_dir: str | os.PathLike[str] | None = None,
    flag_values: dict[str, Any] | None = None,
    runner: ExtensionRunner | None = None,
) -> ExtensionsResult:
    """Load every source (see the module docstring); never raises for a failing extension."""
    runner = runner if runner is not None else ExtensionRunner()
    result = ExtensionsResult(runner=runner)
    cwd_s = str(cwd)
    bus = EventBus()
    flags = flag_values if flag_values is not None else {}
    seen: set[str] = set()

    def run(name: str, path: str, get_factory: Callable[[], ExtensionFactory]) -> None:
        if path in seen:
            return
        seen.add(path)
        ext = Extension(name, path)
        api = ExtensionAPI(ext, runner, cwd=cwd_s, flag_values=flags, events=bus)
        try:
            factory = get_factory()
            out = factory(api)
        except Exception as err:
            # a missing extension file is the whole story: no traceback of the loader
            missing = isinstance(err, FileNotFoundError) and not path.startswith(("<", "module:")) and \
                not os.path.exists(path)
            result.errors.append(LoadError(name, path, err, "" if missing else _tb(err)))
            return
        if out is not None and hasattr(out, "__await__"):
            ext.pending = out
        else:
            ext.loading = False
        result.extensions.append(ext)
        runner.extensions.append(ext)

    for spec in specs:
        if callable(spec) and not isinstance(spec, (str, os.PathLike)):
            fname = getattr(spec, "__name__", type(spec).__name__)
            run(fname, f"<factory {fname}>", partial(_identity, spec))
            continue
        s = os.fspath(spec)
        path = _as_path(s, cwd_s)
        if path is not None:
            run(_name_of(path), str(path), partial(_factory_from_file, path))
        else:
            run(s, f"module:{s}", partial(_factory_from_name, s))
    for f in factories:
        fname = getattr(f, "__name__", type(f).__name__)
        run(fname, f"<factory {fname}>", partial(_identity, f))
    if discover:
        dirs = [Path(cwd_s) / ".autocue" / "extensions", Path(agent_dir or default_agent_dir()) / "extensions"]
        for d in dirs:
            for p in discover_extension_paths(d):
                rp = p.resolve()
                run(_name_of(rp), str(rp), partial(_factory_from_file, rp))
        try:
            eps = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
        except Exception as err:  # a broken installation must not stop the session
            result.errors.append(LoadError("entry points", f"entry-points:{ENTRY_POINT_GROUP}", err, _tb(err)))
            eps = []
        for ep in eps:
            run(ep.name, f"entry-point:{ep.name} ({ep.value})", partial(_factory_from_entry_point, ep))
    runner.rebuild()
    return result


async def finish_loading(result: ExtensionsResult) -> list[LoadError]:
    """Await the async ``extension(api)`` functions; a failure removes that extension. Returns new errors."""
    new: list[LoadError] = []
    for ext in list(result.extensions):
        pending = ext.pending
        if pending is None:
            continue
        ext.pending = None
        try:
            await pending
        except Exception as err:
            err_rec = LoadError(ext.name, ext.path, err, _tb(err))
            new.append(err_rec)
            result.errors.append(err_rec)
            result.extensions.remove(ext)
            result.runner.remove(ext)
            continue
        ext.loading = False
    result.runner.rebuild()
    return new


# ---------------------------------------------------------------------------- helpers


def _identity(f: ExtensionFactory) -> ExtensionFactory:
    return f


def _factory_from_file(path: Path) -> ExtensionFactory:
    return _factory_from_module(_import_file(path), str(path))


def _factory_from_entry_point(ep: importlib.metadata.EntryPoint) -> ExtensionFactory:
    return _factory_from_object(ep.load(), ep.value)


def _tb(err: BaseException) -> str:
    return "".join(traceback.format_exception(type(err), err, err.__traceback__))


def _as_path(spec: str, cwd: str) -> Path | None:
    """A spec names a file or directory when it ends in .py, contains a path separator, or exists."""
    looks_like_path = spec.endswith(".py") or os.sep in spec or "/" in spec or spec.startswith((".", "~"))
    p = Path(spec).expanduser()
    if not p.is_absolute():
        p = Path(cwd) / p
    if p.exists():
        return p.resolve()
    return p if looks_like_path else None  # a missing file is reported as a load error by the caller


def _name_of(path: Path) -> str:
    if path.name in ("__init__.py", "index.py"):
        return path.parent.name
    return path.stem if path.suffix == ".py" else path.name


def _import_file(path: Path) -> ModuleType:
    if not path.exists():
        raise FileNotFoundError(f"extension file not found: {path}")
    if path.is_dir():
        init = path / "__init__.py"
        entry = init if init.is_file() else path / "index.py"
        if not entry.is_file():
            raise FileNotFoundError(f"extension directory {path} has neither __init__.py nor index.py")
        search: list[str] | None = [str(path)]
    else:
        entry, search = path, None
    modname = f"autocue_ext_{_ident(_name_of(path))}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(modname, entry, submodule_search_locations=search)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {entry} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return module


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _factory_from_module(module: ModuleType, where: str) -> ExtensionFactory:
    fn = getattr(module, "extension", None)
    if fn is None or not callable(fn):
        raise AttributeError(
            f"{where} has no `extension(api)` function; define `def extension(api): ...` (sync or async) in it"
        )
    return fn  # type: ignore[no-any-return]


def _factory_from_name(spec: str) -> ExtensionFactory:
    modname, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(modname)
    except ModuleNotFoundError as e:
        if e.name and modname.startswith(e.name):
            raise ModuleNotFoundError(
                f"extension {spec!r} is neither a file nor an importable module ({e}); "
                "give a path to a .py file or install the module"
            ) from e
        raise
    if attr:
        obj = module
        for part in attr.split("."):
            obj = getattr(obj, part)
        return _factory_from_object(obj, spec)
    return _factory_from_module(module, f"module {modname}")


def _factory_from_object(obj: Any, where: str) -> ExtensionFactory:
    if isinstance(obj, ModuleType):
        return _factory_from_module(obj, where)
    if not callable(obj):
        raise TypeError(f"{where} is {type(obj).__name__}, not an extension function or module")
    return obj  # type: ignore[no-any-return]


__all__ = [
    "ENTRY_POINT_GROUP", "ExtensionFactory", "ExtensionSpec", "ExtensionsResult", "LoadError",
    "default_agent_dir", "discover_extension_paths", "finish_loading", "load_extensions",
]
