"""Built-in tools: real ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find`` and ``ls``.

Each factory takes the working directory the tool works relative to and returns an
``autocue.agent.AgentTool`` with pi-compatible names, JSON-Schema parameters and result
texts. Failures raise ``ToolError`` (the agent turns it into an error result).

    tools = create_builtin_tools("/path/to/project", BUILTIN_TOOL_NAMES)
    agent = Agent(provider=..., model=..., tools=list(tools.values()))
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.tools.bash import create_bash_tool, default_shell
    from autocue.tools.common import ToolError
    from autocue.tools.diff import generate_diff
    from autocue.tools.edit import create_edit_tool
    from autocue.tools.find import create_find_tool
    from autocue.tools.grep import create_grep_tool, find_ripgrep
    from autocue.tools.images import detect_image_mime
    from autocue.tools.ls import create_ls_tool
    from autocue.tools.paths import expand_path, resolve_to_cwd
    from autocue.tools.read import create_read_tool
    from autocue.tools.registry import (
        BUILTIN_TOOL_NAMES,
        DEFAULT_TOOL_NAMES,
        READ_ONLY_TOOL_NAMES,
        TOOL_FACTORIES,
        create_builtin_tools,
    )
    from autocue.tools.truncate import (
        DEFAULT_MAX_BYTES,
        DEFAULT_MAX_LINES,
        TruncationResult,
        format_size,
        truncate_head,
        truncate_line,
        truncate_tail,
    )
    from autocue.tools.write import create_write_tool

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.tools.bash": ["create_bash_tool", "default_shell"],
    "autocue.tools.common": ["ToolError"],
    "autocue.tools.diff": ["generate_diff"],
    "autocue.tools.edit": ["create_edit_tool"],
    "autocue.tools.find": ["create_find_tool"],
    "autocue.tools.grep": ["create_grep_tool", "find_ripgrep"],
    "autocue.tools.images": ["detect_image_mime"],
    "autocue.tools.ls": ["create_ls_tool"],
    "autocue.tools.paths": ["expand_path", "resolve_to_cwd"],
    "autocue.tools.read": ["create_read_tool"],
    "autocue.tools.registry": ["BUILTIN_TOOL_NAMES", "DEFAULT_TOOL_NAMES", "READ_ONLY_TOOL_NAMES", "TOOL_FACTORIES",
                               "create_builtin_tools"],
    "autocue.tools.truncate": ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_LINES", "TruncationResult", "format_size",
                               "truncate_head", "truncate_line", "truncate_tail"],
    "autocue.tools.write": ["create_write_tool"],
})


__all__ = [
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "TOOL_FACTORIES",
    "ToolError",
    "TruncationResult",
    "create_bash_tool",
    "create_builtin_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_write_tool",
    "default_shell",
    "detect_image_mime",
    "expand_path",
    "find_ripgrep",
    "format_size",
    "generate_diff",
    "resolve_to_cwd",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]
