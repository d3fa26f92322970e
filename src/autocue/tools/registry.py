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

    def __init__(self, where: dict[str, str]) -> None:
        self._where = where  # name -> "module:factory"

    def __getitem__(self, name: str) -> ToolFactory:
        module, factory = self._where[name].split(":")  # KeyError for an unknown name, as a dict
        found: ToolFactory = getattr(importlib.import_module(module), factory)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


TOOL_FACTORIES: Mapping[str, ToolFactory] = _Factories({
    "read": "autocue.tools.read:create_read_tool",
    "bash": "autocue.tools.bash:create_bash_tool",
    "edit": "autocue.tools.edit:create_edit_tool",
    "write": "autocue.tools.write:create_write_tool",
    "grep": "autocue.tools.grep:create_grep_tool",
    "find": "autocue.tools.find:create_find_tool",
    "ls": "autocue.tools.ls:create_ls_tool",
})


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
