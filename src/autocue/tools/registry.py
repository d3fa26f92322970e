"""Which built-in tools exist and building a set of them for a working directory.

Public: ``BUILTIN_TOOL_NAMES`` (all seven, pi's order), ``DEFAULT_TOOL_NAMES`` (pi's default
``read, bash, edit, write``), ``READ_ONLY_TOOL_NAMES``, ``TOOL_FACTORIES`` and
``create_builtin_tools(cwd, names=None) -> dict[str, AgentTool]``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from autocue.tools.paths import StrPath

if TYPE_CHECKING:
    from autocue.agent.tool import AgentTool

BUILTIN_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES: tuple[str, ...] = ("read", "grep", "find", "ls")

ToolFactory = Callable[[StrPath], "AgentTool"]


class _Factories(Mapping[str, ToolFactory]):
    """Tool name -> factory; a tool's module is imported when its factory is first looked up, so a
    program that uses ``read`` and ``ls`` (the mock agent) does not import the other five."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._names = names  # tool NAME is create_NAME_tool in autocue/tools/NAME.py

    def __getitem__(self, name: str) -> ToolFactory:
        if name not in self._names:
            raise KeyError(name)
        factory: ToolFactory = getattr(importlib.import_module(f"autocue.tools.{name}"), f"create_{name}_tool")
        return factory

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


TOOL_FACTORIES: Mapping[str, ToolFactory] = _Factories(BUILTIN_TOOL_NAMES)


def create_builtin_tools(cwd: StrPath, names: Iterable[str] | None = None) -> dict[str, AgentTool]:
    """Built-in tools working in ``cwd``, keyed by name, in the order asked for.

    ``names`` defaults to ``DEFAULT_TOOL_NAMES``. An unknown name raises ``ValueError`` listing
    the available ones.
    """
    wanted = DEFAULT_TOOL_NAMES if names is None else tuple(names)
    unknown = [n for n in wanted if n not in TOOL_FACTORIES]
    if unknown:
        raise ValueError(f"Unknown built-in tool(s): {', '.join(unknown)}. Available: {', '.join(BUILTIN_TOOL_NAMES)}")
    return {n: TOOL_FACTORIES[n](cwd) for n in wanted}
