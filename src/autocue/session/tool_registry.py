"""``ToolRegistry``: the tools a session knows and the ones the model sees.

Built-in (or ``tools=``) tools, overlaid by extension tools of the same name; the active
names are ``active_tools=`` (extension tools registered later are added to it) or the
default set plus every extension tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from autocue.agent.tool import AgentTool
from autocue.extensions.host import ToolInfo
from autocue.extensions.runner import ExtensionRunner
from autocue.tools import BUILTIN_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_builtin_tools


class ToolRegistry:
    __slots__ = ("_active", "_base", "_default_active", "_known_ext", "_runner")

    def __init__(
        self,
        runner: ExtensionRunner,
        base: dict[str, AgentTool],
        default_active: list[str],
        active: Sequence[str] | None,
    ) -> None:
        self._runner = runner
        self._base = base
        self._default_active = default_active
        self._active: list[str] | None = list(active) if active is not None else None
        self._known_ext: set[str] = set()

    @classmethod
    def create(
        cls,
        runner: ExtensionRunner,
        cwd: str,
        tools: Sequence[AgentTool] | Mapping[str, AgentTool] | None,
        active: Sequence[str] | None,
    ) -> ToolRegistry:
        """``tools=`` (all active by default), or every built-in tool with pi's default set active."""
        if tools is None:
            base = dict(create_builtin_tools(cwd, BUILTIN_TOOL_NAMES))
            return cls(runner, base, [n for n in DEFAULT_TOOL_NAMES if n in base], active)
        items = tools.values() if isinstance(tools, Mapping) else tools
        base = {t.name: t for t in items}
        return cls(runner, base, list(base), active)

    def add_builtin(self, tool: AgentTool, *, active: bool) -> None:
        """A tool the session itself provides (``task``); ``tools=`` of the same name wins."""
        if tool.name in self._base:
            return
        self._base[tool.name] = tool
        if active:
            self._default_active.append(tool.name)

    def all_tools(self) -> dict[str, AgentTool]:
        out = dict(self._base)
        out.update(self._runner.tools())
        return out

    def infos(self) -> list[ToolInfo]:
        """Built-in (or ``tools=``) and extension tools; an extension tool replaces a built-in of its name."""
        active = set(self.active_names())
        sources = self._runner.tool_sources()
        return [
            ToolInfo(name, t.description, t.parameters, "extension" if (ext := sources.get(name)) else "builtin",
                     name in active, ext.path if ext else None, bool(ext) and name in self._base)
            for name, t in self.all_tools().items()
        ]

    def active_names(self) -> list[str]:
        if self._active is not None:
            return list(self._active)
        ext = [n for n in self._runner.tools() if n not in self._default_active]
        return self._default_active + ext

    def set_active(self, names: Sequence[str]) -> None:
        known = self.all_tools()
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(
                f"set_active_tools: unknown tool(s) {', '.join(unknown)}; known tools: {', '.join(known) or 'none'}"
            )
        self._active = list(dict.fromkeys(names))

    def active_tools(self) -> tuple[list[str], list[AgentTool]]:
        """The active names and tools, after adding newly registered extension tools to ``active_tools=``."""
        new_names = [n for n in self._runner.tools() if n not in self._known_ext]
        self._known_ext.update(new_names)
        if self._active is not None:
            self._active += [n for n in new_names if n not in self._active]
        all_tools = self.all_tools()
        names = self.active_names()
        return names, [all_tools[n] for n in names if n in all_tools]


__all__ = ["ToolRegistry"]
