"""The sync/async naming rule of docs/architecture.md holds across the public API.

A pair's plain name is the primary way in; the twin's suffix says how it differs: ``x_sync``
blocks (``x`` is the coroutine), ``x_async`` is the coroutine (``x`` blocks), ``x_nowait``
returns at once (``x`` waits). No ``a`` prefix (``ax`` beside ``x``) except ``aclose`` and the
listed earlier names, each the same function as its rule name.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import autocue

EARLIER_NAMES = {"adispose": "dispose_async"}
"""Names from before the rule, kept working as aliases of the rule's name."""


def _faces() -> Iterator[tuple[str, Any]]:
    """Every public module of autocue and every class it exports, with a label."""
    for info in pkgutil.walk_packages(autocue.__path__, "autocue."):
        if info.name.endswith("__main__") or any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        mod = importlib.import_module(info.name)
        yield info.name, mod
        for name in getattr(mod, "__all__", ()):
            if not hasattr(mod, name):  # a submodule listed in __all__
                importlib.import_module(f"{info.name}.{name}")
            obj = getattr(mod, name)
            if inspect.isclass(obj) and obj.__module__.startswith("autocue"):
                yield f"{info.name}.{name}", obj


def _names(ns: Any) -> dict[str, Any]:
    out = {}
    for name in dir(ns):
        if name.startswith("_"):
            continue
        try:
            value = inspect.getattr_static(ns, name)
        except AttributeError:
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if callable(value):
            out[name] = value
    return out


def violations(faces: Iterator[tuple[str, Any]]) -> list[str]:
    problems: set[str] = set()
    for label, ns in faces:
        names = _names(ns)
        is_co = {n: inspect.iscoroutinefunction(f) for n, f in names.items()}
        for name in names:
            where = f"{label}.{name}"
            for suffix, twin_is_co in (("_sync", False), ("_async", True), ("_nowait", False)):
                base = name.removesuffix(suffix)
                if base != name and base in names:
                    if is_co[name] is not twin_is_co:
                        problems.add(f"{where}: a {suffix} twin must {'' if twin_is_co else 'not '}be a coroutine")
                    if suffix != "_nowait" and is_co[base] is twin_is_co:
                        must = "must not" if twin_is_co else "must"
                        problems.add(f"{where}: its plain twin {base} {must} be a coroutine")
            if name.startswith("a") and name[1:] in names and is_co[name] and name != "aclose":
                rule_name = EARLIER_NAMES.get(name)
                if rule_name is None or names.get(rule_name) is not names[name]:
                    problems.add(f"{where}: an 'a' prefix beside {name[1:]}; name the coroutine {name[1:]}_async")
    return sorted(problems)


def test_every_public_pair_follows_the_rule() -> None:
    assert violations(_faces()) == []


def test_the_check_fails_on_planted_pairs() -> None:
    class Planted:
        async def run(self) -> None: ...
        async def run_sync(self) -> None: ...  # a blocking twin that is a coroutine
        def close(self) -> None: ...
        async def aclose(self) -> None: ...  # Python's own name: allowed
        def stop(self) -> None: ...
        async def astop(self) -> None: ...  # an 'a' prefix
        async def send(self) -> None: ...
        async def send_async(self) -> None: ...  # the plain one should block

    assert violations(iter([("Planted", Planted)])) == [
        "Planted.astop: an 'a' prefix beside stop; name the coroutine stop_async",
        "Planted.run_sync: a _sync twin must not be a coroutine",
        "Planted.send_async: its plain twin send must not be a coroutine",
    ]
