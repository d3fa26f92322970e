"""Lazy package exports: a package's ``__init__`` names what it exports and the module each name
lives in; that module is imported when the name is first used (PEP 562).

Importing one module of a package runs the package's ``__init__`` first, so an ``__init__``
that imports every sibling makes ``autocue.tools.read`` cost all seven tools and the agent
loop. A lazy ``__init__`` keeps the same public names (and the same static view: it imports
them under ``if TYPE_CHECKING:`` for type checkers), and ``tests/test_lazy_exports.py`` checks
that both lists agree and every name resolves::

    if TYPE_CHECKING:
        from autocue.tools.read import create_read_tool
    __getattr__, __dir__ = lazy_exports(__name__, {"autocue.tools.read": ["create_read_tool"]})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, Iterable[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``modules`` maps a module to the names it exports."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
