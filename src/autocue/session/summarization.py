"""Asking the model for a summary, as pi does it: the conversation as plain text (so the
summarizer does not continue the chat), pi's prompts, and the files the agent touched
(``<read-files>`` / ``<modified-files>`` appended to a summary). The call goes *through the
provider*, so a test scripts the summary with ``ScriptedProvider``. Compaction (``compaction.py``)
and branch summaries (``branch_summary.py``) use them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from autocue.llm.abort import AbortSignal
from autocue.llm.stream import Provider, StreamOptions
from autocue.llm.types import AssistantMessage, Context, Message, Model, TextContent, UserMessage
from autocue.session.errors import CompactionError
from autocue.session.messages import AgentMessage, convert_to_llm

# ---------------------------------------------------------------------------- file operations


@dataclass(slots=True)
class FileOperations:
    """Paths the agent read, wrote and edited (from ``read``/``write``/``edit`` tool calls)."""

    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_previous(self, details: Any) -> None:
        """Carry over the file lists of an earlier summary's ``details`` (``readFiles``, ``modifiedFiles``)."""
        if not isinstance(details, dict):
            return
        for key, paths in (("readFiles", self.read), ("modifiedFiles", self.edited)):
            if isinstance(files := details.get(key), list):
                paths.update(f for f in files if isinstance(f, str))


def extract_file_ops_from_message(message: Any, ops: FileOperations) -> None:
    """Add the ``path`` argument of an assistant message's read/write/edit tool calls."""
    if message.role != "assistant":
        return
    for b in message.content:
        if b.type != "toolCall":
            continue
        args = b.arguments
        path = args.get("path") if isinstance(args, dict) else None
        paths = {"read": ops.read, "write": ops.written, "edit": ops.edited}.get(b.name)
        if paths is not None and isinstance(path, str) and path:
            paths.add(path)


def compute_file_lists(ops: FileOperations) -> tuple[list[str], list[str]]:
    """``(read_files, modified_files)``: files only read, and files written or edited; sorted."""
    modified = ops.edited | ops.written
    return sorted(ops.read - modified), sorted(modified)


def format_file_operations(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    """The ``<read-files>`` / ``<modified-files>`` blocks pi appends to a summary ("" if none)."""
    sections = [f"<{tag}>\n" + "\n".join(files) + f"\n</{tag}>"
                for tag, files in (("read-files", read_files), ("modified-files", modified_files)) if files]
    return "\n\n" + "\n\n".join(sections) if sections else ""


# ---------------------------------------------------------------------------- serialization and prompts

TOOL_RESULT_MAX_CHARS = 2000


def _shown_args(args: Any) -> str:
    return ", ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in args.items()) if isinstance(args, dict) else ""


def serialize_conversation(messages: Sequence[Message]) -> str:
    """LLM messages as plain text for a summarizer (so it does not continue the chat):
    ``[User]:``, ``[Assistant thinking]:``, ``[Assistant]:``, ``[Assistant tool calls]:
    read(path="a")``, ``[Tool result]:`` (cut at 2000 characters)."""
    parts: list[str] = []
    for m in messages:
        if m.role == "user":
            c = m.content
            text = c if isinstance(c, str) else "".join(b.text for b in c if b.type == "text")
            if text:
                parts.append(f"[User]: {text}")
        elif m.role == "assistant":
            blocks = m.content
            thinking = [b.thinking for b in blocks if b.type == "thinking"]
            texts = [b.text for b in blocks if b.type == "text"]
            calls = [f"{b.name}({_shown_args(b.arguments)})" for b in blocks if b.type == "toolCall"]
            for label, items, sep in (("Assistant thinking", thinking, "\n"), ("Assistant", texts, "\n"),
                                      ("Assistant tool calls", calls, "; ")):
                if items:
                    parts.append(f"[{label}]: " + sep.join(items))
        else:
            text = "".join(b.text for b in m.content if b.type == "text")
            cut = len(text) - TOOL_RESULT_MAX_CHARS
            if cut > 0:
                text = f"{text[:TOOL_RESULT_MAX_CHARS]}\n\n[... {cut} more characters truncated]"
            if text:
                parts.append(f"[Tool result]: {text}")
    return "\n\n".join(parts)


SUMMARIZATION_SYSTEM_PROMPT = """You are a context summarization assistant. Your task is to read a conversation \
between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured \
summary."""

SUMMARIZATION_PROMPT = """The messages above are a conversation to summarize. Create a structured context \
checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages."""

UPDATE_SUMMARIZATION_PROMPT = """The messages above are NEW conversation messages to incorporate into the existing \
summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from "In Progress" to "Done" when completed
- UPDATE "Next Steps" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages."""

TURN_PREFIX_SUMMARIZATION_PROMPT = """This is the PREFIX of a turn that was too large to keep. The SUFFIX \
(recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Early Progress
- [Key decisions and work done in the prefix]

## Context for Suffix
- [Information needed to understand the retained recent work]

Be concise. Focus on what's needed to understand the kept suffix."""

SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


# ---------------------------------------------------------------------------- summarizing


async def ask_summarizer(
    model: Model, provider: Provider, prompt: str, max_tokens: int, signal: AbortSignal | None, api_key: str | None,
) -> AssistantMessage:
    """One summarizer call through ``provider``: pi's summarization system prompt, ``prompt`` as the user message."""
    context = Context(SUMMARIZATION_SYSTEM_PROMPT, [UserMessage([TextContent(prompt)])])
    stream = provider.stream(model, context, StreamOptions(signal=signal, api_key=api_key, max_tokens=max_tokens))
    return await stream.result()


def reply_text(reply: AssistantMessage) -> str:
    """The text blocks of a summarizer's reply, one per line."""
    return "\n".join(b.text for b in reply.content if isinstance(b, TextContent))


async def _complete(
    model: Model, provider: Provider, prompt: str, max_tokens: int, signal: AbortSignal | None,
    api_key: str | None, what: str,
) -> str:
    reply = await ask_summarizer(model, provider, prompt, max_tokens, signal, api_key)
    if reply.stop_reason == "error":
        raise CompactionError(f"{what} failed: {reply.error_message or 'Unknown error'}")
    if reply.stop_reason == "aborted":
        raise CompactionError(f"{what} was aborted: {reply.error_message or 'Request was aborted'}")
    return reply_text(reply)


def build_summary_prompt(
    messages: Sequence[AgentMessage], custom_instructions: str | None = None, previous_summary: str | None = None
) -> str:
    """The user prompt of a history summary (the UPDATE prompt when there is a previous summary)."""
    base = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        base = f"{base}\n\nAdditional focus: {custom_instructions}"
    prompt = f"<conversation>\n{serialize_conversation(convert_to_llm(list(messages)))}\n</conversation>\n\n"
    if previous_summary:
        prompt += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    return prompt + base


async def generate_summary(
    messages: Sequence[AgentMessage], model: Model, provider: Provider, reserve_tokens: int, *,
    signal: AbortSignal | None = None, custom_instructions: str | None = None,
    previous_summary: str | None = None, api_key: str | None = None,
) -> str:
    """Ask the model for a structured summary of ``messages`` (max tokens: 80% of the reserve); raises
    ``CompactionError`` when the call fails or is aborted (as ``generate_turn_prefix_summary`` does)."""
    prompt = build_summary_prompt(messages, custom_instructions, previous_summary)
    return await _complete(model, provider, prompt, math.floor(0.8 * reserve_tokens), signal, api_key,
                           "Summarization")


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage], model: Model, provider: Provider, reserve_tokens: int, *,
    signal: AbortSignal | None = None, api_key: str | None = None,
) -> str:
    """Ask the model to summarize the kept turn's prefix (max tokens: 50% of the reserve)."""
    text = serialize_conversation(convert_to_llm(list(messages)))
    prompt = f"<conversation>\n{text}\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    return await _complete(model, provider, prompt, math.floor(0.5 * reserve_tokens), signal, api_key,
                           "Turn prefix summarization")


__all__ = [
    "SPLIT_TURN_SEPARATOR", "SUMMARIZATION_PROMPT", "SUMMARIZATION_SYSTEM_PROMPT", "TOOL_RESULT_MAX_CHARS",
    "TURN_PREFIX_SUMMARIZATION_PROMPT", "UPDATE_SUMMARIZATION_PROMPT", "FileOperations", "ask_summarizer",
    "build_summary_prompt", "compute_file_lists", "extract_file_ops_from_message", "format_file_operations",
    "generate_summary", "generate_turn_prefix_summary", "reply_text", "serialize_conversation",
]
