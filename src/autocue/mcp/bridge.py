"""``mcp_extension(manager)``: an extension factory that gives a session the manager's MCP tools.

It registers each tool through the public ``ExtensionAPI.register_tool`` seam, at load and
whenever a server joins late or sends ``tools/list_changed``; a tool a server stops offering is
taken out of the active tools (and answers with an error if called anyway). Names in
``exclude`` are left alone (the test harness mocks them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from autocue.agent.tool import AgentTool
from autocue.mcp.manager import MCPManager


def mcp_extension(manager: MCPManager, *, exclude: Collection[str] = ()) -> Callable[[Any], None]:
    """An extension factory (for ``extension_factories=``) bridging ``manager``'s tools."""
    skip = frozenset(exclude)

    def mcp(api: Any) -> None:
        registered: dict[str, AgentTool] = {}
        inactive: set[str] = set()

        def sync() -> None:
            current = {t.name: t for t in manager.agent_tools() if t.name not in skip}
            for name, tool in current.items():
                if registered.get(name) is not tool:
                    registered[name] = tool
                    api.register_tool(tool)
            gone = [n for n in registered if n not in current and n not in inactive]
            back = [n for n in current if n in inactive]
            if api.extension.loading or (not gone and not back):
                return
            try:
                active = api.get_active_tools()
            except Exception:  # the session is not bound yet: nothing to (de)activate
                return
            inactive.update(gone)
            inactive.difference_update(back)
            api.set_active_tools([n for n in active if n not in gone] + [n for n in back if n not in active])

        sync()
        manager.add_tools_listener(sync)

    return mcp
