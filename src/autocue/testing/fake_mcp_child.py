"""The stdio side of ``fake_mcp_server(transport="stdio")``: ``python -m autocue.testing.fake_mcp_child SPEC``.

SPEC is a JSON file: ``{"name", "calls": path, "tools": {NAME: {"description", "input_schema",
"handler": "module:qualname" | "result": value}}}``. Each call is appended to ``calls`` as a
JSON line before its handler runs (so a handler that ends the process is still recorded).
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

from autocue.testing.fake_mcp import FakeTool, build_server


def _resolve(ref: str) -> Any:
    module, _, qual = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def main(argv: list[str]) -> int:
    import anyio
    from mcp.server.lowlevel import NotificationOptions
    from mcp.server.stdio import stdio_server

    with open(argv[0], encoding="utf-8") as f:
        spec = json.load(f)
    tools = {
        name: FakeTool(_resolve(t["handler"]) if "handler" in t else t.get("result"), t["description"],
                       t["input_schema"])
        for name, t in spec["tools"].items()
    }
    calls_path = spec["calls"]

    def on_call(tool: str, args: dict[str, Any], session: Any) -> None:
        if tool:
            with open(calls_path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"tool": tool, "arguments": args}) + "\n")

    server = build_server(lambda: tools, on_call, spec["name"])

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options(NotificationOptions(tools_changed=True)))

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
