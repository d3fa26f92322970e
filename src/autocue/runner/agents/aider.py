"""aider's script: it makes no tool calls, so the scenario's ``writeFile`` / ``editFile`` calls become
aider's ``diff`` edit blocks in the reply text (``aider_script``), which aider applies. Its launch
profile is in its catalogue entry (``autocue.catalog.clis.aider``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from autocue.llm.types import TextContent
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Turn

FENCE = "```"


def edit_block(call: ScriptedToolCall, workspace: Path | None = None) -> str | None:
    """aider's ``diff`` edit block for a ``writeFile`` / ``editFile`` call (None for other tools).

    aider matches whole lines: an ``editFile`` whose old text is part of a line of the file (read
    from ``workspace`` as seeded) is widened to the lines that hold it."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    path = str(args.get("path") or args.get("file_path") or "")
    if call.name == "writeFile":
        search, replace = "", str(args.get("content", ""))
    elif call.name == "editFile":
        search, replace = str(args.get("oldText", args.get("old_string", ""))), str(
            args.get("newText", args.get("new_string", "")))
    else:
        return None
    if call.name == "editFile" and workspace is not None and search:
        search, replace = _whole_lines(workspace / path, search, replace)
    search = search if not search or search.endswith("\n") else search + "\n"
    replace = replace if not replace or replace.endswith("\n") else replace + "\n"
    return f"{path}\n{FENCE}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{FENCE}\n"


def _whole_lines(path: Path, search: str, replace: str) -> tuple[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return search, replace
    at = text.find(search)
    if at < 0:
        return search, replace
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at + len(search))
    end = len(text) if end < 0 else end + 1
    return text[start:end], text[start:at] + replace + text[at + len(search):end]


def aider_script(script: Script, workspace: Path | None = None) -> Script:
    """``script`` with each user turn played as one reply, as aider asks the model once per message:
    the texts of the turn's replies in order, with their ``writeFile``/``editFile`` calls as edit
    blocks where they were. Other tool calls (aider declares none) are dropped; a scripted error
    stays a reply of its own, before. The reply keeps the ``source`` of the turn's last one, so the
    executor waits for it where the scenario waited for that one."""
    turns = []
    for turn in script.turns:
        steps: list[object] = []
        texts: list[str] = []
        last: ScriptedResponse | None = None
        for step in turn.steps:
            if not isinstance(step, ScriptedResponse) or step.error is not None:
                steps.append(step)
                continue
            last = step
            for block in step.content:
                if isinstance(block, TextContent):
                    texts.append(block.text)
                elif isinstance(block, ScriptedToolCall):
                    blk = edit_block(block, workspace)
                    if blk is not None:
                        texts.append(blk)
        if last is not None:
            steps.append(ScriptedResponse([TextContent("\n\n".join(t for t in texts if t))], pos=last.pos))
        turns.append(Turn(turn.prompt, steps, list(turn.checks), turn.pos))  # type: ignore[arg-type]
    return dataclasses.replace(script, turns=turns)
