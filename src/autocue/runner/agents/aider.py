"""aider (``aider-chat``, PyPI): chat, Anthropic or Responses through litellm; no tool calls.

Edits come back as text: the runner turns the scenario's ``writeFile`` / ``editFile`` calls into
aider's ``diff`` edit blocks (``aider_script``), which aider applies. Its git integration, update
check, analytics and model warnings are off; ``--yes-always`` confirms edits to files not yet
in the chat.
"""

from __future__ import annotations

import dataclasses

from autocue.llm.types import TextContent
from autocue.runner.agents.base import AgentProfile
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Turn

_FLAGS = ("--model", "{aider_model}", "--edit-format", "diff", "--yes-always", "--no-git", "--no-check-update",
          "--no-show-release-notes", "--analytics-disable", "--no-show-model-warnings", "--no-auto-lint",
          "--no-auto-test", "--no-stream")

PROFILE = AgentProfile(
    name="aider",
    binary="aider",
    print_args=(*_FLAGS, "--no-pretty", "--no-fancy-input", "--message", "{prompt}"),
    tui_args=(*_FLAGS, "--no-fancy-input"),
    apis={"openai": {"aider_model": "openai/mock-gpt"},
          "anthropic": {"aider_model": "anthropic/claude-sonnet-4-5"},
          "openai-responses": {"aider_model": "openai/responses/mock-resp"}},
    env={"OPENAI_API_BASE": "{openai_base_url}", "OPENAI_API_KEY": "{api_key}", "ANTHROPIC_BASE_URL": "{base_url}",
         "ANTHROPIC_API_KEY": "{api_key}", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "AIDER_CHECK_UPDATE": "false"},
    tool_profile=None,
    package="aider-chat",
    installer="pip",
    version="0.86.2",
    verified=("0.86.2",),
    quit_input="/exit<enter>",
    notes="no tools: writeFile/editFile become diff edit blocks in the reply text",
)

FENCE = "```"


def edit_block(call: ScriptedToolCall) -> str | None:
    """aider's ``diff`` edit block for a ``writeFile`` / ``editFile`` call (None for other tools)."""
    args = call.arguments if isinstance(call.arguments, dict) else {}
    path = str(args.get("path") or args.get("file_path") or "")
    if call.name == "writeFile":
        search, replace = "", str(args.get("content", ""))
    elif call.name == "editFile":
        search, replace = str(args.get("oldText", args.get("old_string", ""))), str(
            args.get("newText", args.get("new_string", "")))
    else:
        return None
    search = search if not search or search.endswith("\n") else search + "\n"
    replace = replace if not replace or replace.endswith("\n") else replace + "\n"
    return f"{path}\n{FENCE}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{FENCE}\n"


def aider_script(script: Script) -> Script:
    """``script`` with each reply's ``writeFile``/``editFile`` calls turned into edit blocks in its text.

    aider makes no tool calls, so the reply that edits is also the turn's last: the scripted
    replies after it in the same turn (the answer to a tool result) are dropped."""
    turns = []
    for turn in script.turns:
        steps: list[object] = []
        for step in turn.steps:
            if not isinstance(step, ScriptedResponse):
                steps.append(step)
                continue
            texts: list[str] = []
            edited = False
            for block in step.content:
                if isinstance(block, TextContent):
                    texts.append(block.text)
                elif isinstance(block, ScriptedToolCall):
                    blk = edit_block(block)
                    if blk is not None:
                        texts.append(blk)
                        edited = True
            steps.append(dataclasses.replace(step, content=[TextContent("\n\n".join(t for t in texts if t))]))
            if edited:
                break
        turns.append(Turn(turn.prompt, steps, list(turn.checks), turn.source))  # type: ignore[arg-type]
    return dataclasses.replace(script, turns=turns)
