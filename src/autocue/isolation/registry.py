"""Which sandbox providers there are: the built-ins and the ``autocue.sandboxes`` entry points.

Both come through ``register``: the built-ins at import, each entry point the first time a provider
is looked up (its value is a provider object, or a class or function that makes one). An entry
point named like a built-in replaces it; one that fails to load is an error naming it.
"""

from __future__ import annotations

import importlib.metadata
import threading

from autocue.errors import nearest
from autocue.isolation.base import SandboxProvider
from autocue.isolation.errors import IsolationError, UnknownSandboxError
from autocue.isolation.providers import BWRAP, DOCKER, NONE, PODMAN

ENTRY_POINT_GROUP = "autocue.sandboxes"
_providers: dict[str, SandboxProvider] = {}
_lock = threading.Lock()
_loaded = False


def register(provider: SandboxProvider) -> SandboxProvider:
    """Make ``provider`` available as ``--sandbox NAME`` (returned, so it works as a decorator's last step)."""
    if not isinstance(provider, SandboxProvider):
        raise IsolationError(f"{provider!r} is not a sandbox provider: it needs `name`, `unavailable()` and "
                             "`start(spec)`")
    with _lock:
        _providers[provider.name] = provider
    return provider


def unregister(name: str) -> None:
    with _lock:
        _providers.pop(name, None)


def _load_entry_points() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.value.startswith("autocue.isolation."):
            continue  # a built-in, registered below
        try:
            obj = ep.load()
        except Exception as e:
            raise IsolationError(f"sandbox provider {ep.name!r} ({ep.value}): cannot load: "
                                 f"{type(e).__name__}: {e}") from None
        provider = obj() if isinstance(obj, type) or (callable(obj) and not isinstance(obj, SandboxProvider)) else obj
        register(provider)


def providers() -> dict[str, SandboxProvider]:
    """Every provider by name (built-ins first)."""
    _load_entry_points()
    with _lock:
        return dict(_providers)


def find(name: str) -> SandboxProvider:
    """The provider ``name``; ``UnknownSandboxError`` names the known ones."""
    known = providers()
    if name in known:
        return known[name]
    near = nearest(name, list(known))
    guess = f"did you mean {near!r}? " if near else ""
    raise UnknownSandboxError(f"--sandbox {name!r}: no such sandbox provider; {guess}(known: {', '.join(known)}); "
                              f"a provider package registers one under the {ENTRY_POINT_GROUP!r} entry points")


for _p in (NONE, BWRAP, DOCKER, PODMAN):
    register(_p)
