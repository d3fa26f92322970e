"""Side calls: requests real agents make besides the conversation, answered without
consuming the script (so a scenario scripts only the agent's real turns).

Each agent CLI declares its own in the catalogue (``AgentCli.side_calls``, ``autocue.catalog.clis``):
Claude Code's and Codex's session titles, opencode's title generator, Gemini CLI's model router.
The first whose pattern matches the request answers it. Each side call is counted in the session
status (``side_calls``).
"""

from __future__ import annotations

from autocue.catalog.cli import RequestView
from autocue.catalog.registry import side_calls
from autocue.llm.types import TextContent
from autocue.script.model import ScriptedResponse


def side_call(req: RequestView, scenario_name: str) -> tuple[str, ScriptedResponse] | None:
    """``(kind, reply)`` when ``req`` is a known side call, else None."""
    for call in side_calls(with_tools=bool(req.declared_tools())):
        if call.matches(req):
            return call.kind, ScriptedResponse([TextContent(call.answer(scenario_name))])
    return None
