"""Side calls: requests real agents make besides the conversation, answered without
consuming the script (so a scenario scripts only the agent's real turns).

* opencode's title generator (system prompt "You are a title generator...") gets a short
  title: the scenario's name.
* Claude Code's session title (its TUI, before the first turn: a tool-less request asking for a
  "sentence-case title" as JSON, ``output_config.format`` with a ``title`` property) gets
  ``{"title": <the scenario's name>}``.
* Codex's thread title (its TUI: a tool-less request "Generate a concise, single-line task
  title ...") gets the scenario's name.
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
    cfg = req.body.get("generationConfig")  # Gemini's
    if isinstance(cfg, dict):
        if _mentions(cfg.get("responseSchema") or cfg.get("responseJsonSchema"), "complexity_score"):
            text = orjson.dumps({"complexity_reasoning": "scripted", "complexity_score": 1}).decode()
            return "gemini-router", ScriptedResponse([TextContent(text)])
        return None
    if req.body.get("tools"):
        return None
    system = req.system_text()
    title = scenario_name.replace("_", " ").replace("-", " ").strip() or "Scripted session"
    if system and "title generator" in system[:200].lower():
        return "title", ScriptedResponse([TextContent(title[:50])])
    if "single-line task title" in req.last_user_text()[:400]:
        return "title", ScriptedResponse([TextContent(title[:36])])
    if _claude_title(req.body, system):
        return "title", ScriptedResponse([TextContent(orjson.dumps({"title": title[:50]}).decode())])
    return None


def _claude_title(body: dict[str, Any], system: str | None) -> bool:
    cfg = body.get("output_config")
    fmt = cfg.get("format") if isinstance(cfg, dict) else None
    if isinstance(fmt, dict) and _mentions(fmt.get("schema"), "title"):
        return True
    return bool(system) and "sentence-case title" in (system or "")


def _mentions(schema: Any, key: str) -> bool:
    if isinstance(schema, dict):
        props = schema.get("properties")
        return isinstance(props, dict) and key in props
    return False
