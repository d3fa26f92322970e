"""The wire APIs the server speaks: ``autocue.catalog.apis`` names them and their modules; a
module is imported the first time its API is needed (``wire_api``, ``all_apis``) and its
``API`` (a ``WireApi``) is kept. ``register`` adds an API at run time (a test's toy API)."""

from __future__ import annotations

import importlib
from typing import TypeAlias

from autocue.catalog import apis as catalog
from autocue.mockllm.errors import UnknownApiError as UnknownApiError
from autocue.mockllm.wire.api import WireApi

ApiName: TypeAlias = str
"""A wire API's name: one of ``autocue.catalog.apis.api_names()``."""

_loaded: dict[str, WireApi] = {}


def find(name: str) -> WireApi | None:
    """The wire API named ``name`` (its module imported on first use), or None."""
    api = _loaded.get(name)
    entry = catalog.APIS.get(name)
    if entry is None:
        return None
    if api is None or api.entry is not entry:
        mod = importlib.import_module(entry.module)
        api = mod.API
        if not isinstance(api, WireApi):
            raise TypeError(f"{entry.module}.API must be a WireApi, got {type(api).__name__}")
        api.entry = entry
        _loaded[name] = api
    return api


def wire_api(name: str) -> WireApi:
    """The wire API named ``name``; ``UnknownApiError`` when there is none."""
    api = find(name)
    if api is None:
        raise UnknownApiError(f"unknown wire API {name!r}; known: {', '.join(catalog.api_names())}")
    return api


def all_apis() -> list[WireApi]:
    """Every wire API, in the catalogue's order."""
    return [wire_api(n) for n in catalog.api_names()]


def api_of_path(path: str) -> WireApi:
    """The API whose error shape a request on ``path`` gets: the first that claims it, else the first API."""
    apis = all_apis()
    for api in apis:
        if api.claims(path):
            return api
    return apis[0]


def model_call_api(path: str) -> WireApi | None:
    """The API of a model call (a ``POST``) to ``path``, or None."""
    for api in all_apis():
        if api.model_call(path):
            return api
    return None


def websocket_api(path: str) -> WireApi | None:
    """The API that takes a WebSocket on ``path``, or None (the upgrade gets 426)."""
    for api in all_apis():
        if api.socket is not None and path in api.websocket_paths:
            return api
    return None


def register(entry: catalog.ApiEntry, api: WireApi | None = None) -> WireApi:
    """Add (or replace) a wire API at run time: its catalogue entry and, when given, its
    ``WireApi`` (else the entry's module is imported)."""
    catalog.register(entry)
    _loaded.pop(entry.name, None)
    if api is not None:
        api.entry = entry
        _loaded[entry.name] = api
    return wire_api(entry.name)


def unregister(name: str) -> None:
    catalog.unregister(name)
    _loaded.pop(name, None)
