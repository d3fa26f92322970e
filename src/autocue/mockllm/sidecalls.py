"""Side calls: requests real agents make besides the conversation, answered without
consuming the script (so a scenario scripts only the agent's real turns).

* opencode's title generator (system prompt "You are a title generator...") gets a short
  title: the scenario's name.
* Gemini CLI's model router (JSON output with a ``complexity_score`` schema) gets
  ``{"complexity_reasoning": "scripted", "complexity_score": 1}``.

Each side call is counted in the session status (``side_calls``).
"""

from __future__ import annotations

from typing import Any

import orjson

from autocue.llm.types import TextContent
from autocue.mockllm.incoming import Incoming
from autocue.script.model import ScriptedResponse


def side_call(req: Incoming, scenario_name: str) -> tuple[str, ScriptedResponse] | None:
    """``(kind, reply)`` when ``req`` is a known side call, else None."""
    if req.api == "gemini":
        cfg = req.body.get("generationConfig")
        if isinstance(cfg, dict) and _mentions(cfg.get("responseSchema") or cfg.get("responseJsonSchema"),
                                               "complexity_score"):
            text = orjson.dumps({"complexity_reasoning": "scripted", "complexity_score": 1}).decode()
            return "gemini-router", ScriptedResponse([TextContent(text)])
        return None
    if req.body.get("tools"):
        return None
    system = req.system_text()
    if system and "title generator" in system[:200].lower():
        title = scenario_name.replace("_", " ").replace("-", " ").strip() or "Scripted session"
        return "title", ScriptedResponse([TextContent(title[:50])])
    return None


def _mentions(schema: Any, key: str) -> bool:
    if isinstance(schema, dict):
        props = schema.get("properties")
        return isinstance(props, dict) and key in props
    return False
