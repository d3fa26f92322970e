"""Which built-in tools exist and building a set of them for a working directory.

Public: ``BUILTIN_TOOL_NAMES`` (all seven, pi's order), ``DEFAULT_TOOL_NAMES`` (pi's default
``read, bash, edit, write``), ``READ_ONLY_TOOL_NAMES``, ``TOOL_FACTORIES`` and
``create_builtin_tools(cwd, names=None) -> dict[str, AgentTool]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from autocue.agent.tool import AgentTool
from autocue.tools.bash import create_bash_tool
from autocue.tools.edit import create_edit_tool
from autocue.tools.find import create_find_tool
from autocue.tools.grep import create_grep_tool
from autocue.tools.ls import create_ls_tool
from autocue.tools.paths import StrPath
from autocue.tools.read import create_read_tool
from autocue.tools.write import create_write_tool

BUILTIN_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES: tuple[str, ...] = ("read", "grep", "find", "ls")

ToolFactory = Callable[[StrPath], AgentTool]

TOOL_FACTORIES: Mapping[str, ToolFactory] = MappingProxyType(
    {
        "read": create_read_tool,
        "bash": create_bash_tool,
        "edit": create_edit_tool,
        "write": create_write_tool,
        "grep": create_grep_tool,
        "find": create_find_tool,
        "ls": create_ls_tool,
    }
)


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
