"""Context compaction, as pi does it: when to compact, where to cut, how to summarize.

Pure functions over session entries and agent messages; the session (``AgentSession``)
does the I/O: it appends the ``compaction`` entry and rebuilds the context.

Public surface:

- ``CompactionSettings(enabled=True, reserve_tokens=16384, keep_recent_tokens=20000)``.
- Token accounting: ``estimate_tokens(message)`` (chars/4, an image is 1200 tokens),
  ``calculate_context_tokens(usage)``, ``estimate_context_tokens(messages)`` →
  ``ContextUsageEstimate``, ``get_context_tokens(messages)`` (last valid assistant usage plus
  estimates of the messages after it), ``get_last_assistant_usage(entries)``,
  ``should_compact(tokens, window, settings)``, ``is_context_overflow(message, window)``.
- Cutting: ``find_cut_point(entries, start, end, keep_recent_tokens)`` → ``CutPointResult``
  (never at a tool result; a cut that is not at a user message is a *split turn*),
  ``find_turn_start_index``, ``prepare_compaction(path_entries, settings)`` →
  ``CompactionPreparation | None``.
- Summarizing: ``serialize_conversation(messages)`` (``[User]:``, ``[Assistant]:``, ...),
  the prompts (``SUMMARIZATION_SYSTEM_PROMPT``, ``SUMMARIZATION_PROMPT``,
  ``UPDATE_SUMMARIZATION_PROMPT``, ``TURN_PREFIX_SUMMARIZATION_PROMPT``),
  ``generate_summary(...)`` and ``async compact(preparation, model, provider, ...)`` →
  ``CompactionResult``, which asks the model *through the provider* (so a test scripts the
  summary with ``ScriptedProvider``) and appends ``<read-files>`` / ``<modified-files>``.
- File operations: ``FileOperations``, ``extract_file_ops_from_message``,
  ``compute_file_lists``, ``format_file_operations``.
- Branch summaries (tree navigation): ``collect_entries_for_branch_summary(session, old_leaf,
  target)``, ``prepare_branch_entries(entries, budget)``, ``async generate_branch_summary(
  entries, model, provider, ...)`` → ``BranchSummaryResult`` (``details`` for the entry).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from autocue.llm.abort import AbortSignal
from autocue.llm.stream import Provider, StreamOptions
from autocue.llm.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    Usage,
    UserMessage,
)
from autocue.session.entries import BranchSummaryEntry, CompactionEntry, SessionEntry, message_of
from autocue.session.errors import CompactionError
from autocue.session.messages import AgentMessage, convert_to_llm

# ---------------------------------------------------------------------------- settings


@dataclass(slots=True)
class CompactionSettings:
    """``compaction`` settings: trigger when tokens > window − ``reserve_tokens``; keep about
    ``keep_recent_tokens`` of recent history verbatim."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


# ---------------------------------------------------------------------------- tokens


def calculate_context_tokens(usage: Usage) -> int:
    """Context size from a reply's usage: ``total_tokens``, else the sum of its parts."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def _assistant_usage(m: Any) -> Usage | None:
    if m.role == "assistant" and m.stop_reason != "error" and m.stop_reason != "aborted":
        return m.usage  # type: ignore[no-any-return]
    return None


def get_last_assistant_usage(entries: Sequence[SessionEntry]) -> Usage | None:
    """The usage of the last successful assistant message among the entries."""
    for e in reversed(entries):
        if e.type == "message" and e.role == "assistant":  # type: ignore[union-attr]
            u = _assistant_usage(e.message)  # type: ignore[union-attr]
            if u is not None:
                return u
    return None


def _text_chars(content: Any, images: bool) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for b in content:
        t = b.type
        if t == "text":
            chars += len(b.text)
        elif t == "image" and images:
            chars += 4800  # an image counts as 1200 tokens
    return chars


def estimate_tokens(message: Any) -> int:
    """pi's chars/4 estimate of one agent message (conservative; images 1200 tokens each)."""
    role = message.role
    if role == "user" or role == "custom" or role == "toolResult":
        chars = _text_chars(message.content, True)
    elif role == "assistant":
        chars = 0
        for b in message.content:
            t = b.type
            if t == "text":
                chars += len(b.text)
            elif t == "thinking":
                chars += len(b.thinking)
            elif t == "toolCall":
                chars += len(b.name) + len(orjson.dumps(b.arguments).decode())
    elif role == "bashExecution":
        chars = len(message.command) + len(message.output)
    elif role == "branchSummary" or role == "compactionSummary":
        chars = len(message.summary)
    else:
        return 0
    return math.ceil(chars / 4)


@dataclass(slots=True)
class ContextUsageEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[Any]) -> ContextUsageEstimate:
    """The last successful assistant usage plus estimates of every message after it (or,
    without any usage, estimates of all messages)."""
    for i in range(len(messages) - 1, -1, -1):
        usage = _assistant_usage(messages[i])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[i + 1:])
            return ContextUsageEstimate(usage_tokens + trailing, usage_tokens, trailing, i)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextUsageEstimate(estimated, 0, estimated, None)


def get_context_tokens(messages: Sequence[Any]) -> int:
    """pi's context size rule (see ``estimate_context_tokens``)."""
    return estimate_context_tokens(messages).tokens


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """True when compaction is enabled and ``context_tokens > context_window - reserve_tokens``."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.I)
    for p in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Amazon Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Google
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
)
_NO_BODY_OVERFLOW = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.I)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """pi's overflow detector: a failed reply whose error matches a provider's "too long"
    message (or Cerebras' bodiless 400/413), or a successful reply whose input exceeded the
    window (providers that overflow silently)."""
    if message.stop_reason == "error" and message.error_message:
        err = message.error_message
        if any(p.search(err) for p in OVERFLOW_PATTERNS) or _NO_BODY_OVERFLOW.search(err):
            return True
    if context_window and message.stop_reason == "stop":
        return message.usage.input + message.usage.cache_read > context_window
    return False


# ---------------------------------------------------------------------------- cut point


_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})


def _find_valid_cut_points(entries: Sequence[SessionEntry], start: int, end: int) -> list[int]:
    out: list[int] = []
    for i in range(start, end):
        e = entries[i]
        t = e.type
        if (t == "message" and e.role in _CUT_ROLES) or t == "branch_summary" or t == "custom_message":  # type: ignore[union-attr]
            out.append(i)
    return out


def find_turn_start_index(entries: Sequence[SessionEntry], entry_index: int, start_index: int) -> int:
    """The user message (or bash execution, branch summary, custom message) that starts the
    turn holding ``entry_index``; -1 when there is none at or after ``start_index``."""
    for i in range(entry_index, start_index - 1, -1):
        e = entries[i]
        t = e.type
        if t == "branch_summary" or t == "custom_message":
            return i
        if t == "message" and e.role in ("user", "bashExecution"):  # type: ignore[union-attr]
            return i
    return -1


@dataclass(slots=True)
class CutPointResult:
    first_kept_entry_index: int
    """Index of the first entry kept verbatim."""
    turn_start_index: int
    """When splitting a turn: the index of the message that started it; else -1."""
    is_split_turn: bool


def find_cut_point(
    entries: Sequence[SessionEntry], start_index: int, end_index: int, keep_recent_tokens: int
) -> CutPointResult:
    """Walk back from the newest entry summing estimated tokens; once ``keep_recent_tokens``
    is reached, cut at the nearest valid cut point at or after that entry (never a tool
    result), then move back over non-message entries (model/thinking changes, labels...)."""
    cut_points = _find_valid_cut_points(entries, start_index, end_index)
    if not cut_points:
        return CutPointResult(start_index, -1, False)
    accumulated = 0
    cut = cut_points[0]
    for i in range(end_index - 1, start_index - 1, -1):
        e = entries[i]
        if e.type != "message":
            continue
        accumulated += estimate_tokens(e.message)  # type: ignore[union-attr]
        if accumulated >= keep_recent_tokens:
            for c in cut_points:
                if c >= i:
                    cut = c
                    break
            break
    # Whether the turn is split is decided at the message cut point. (pi decides it after
    # moving back over settings entries, so a model change right before a user message made
    # the previous whole turn a "split turn prefix"; autocue does not.)
    e = entries[cut]
    is_user = e.type == "message" and e.role == "user"  # type: ignore[union-attr]
    while cut > start_index:
        prev = entries[cut - 1]
        if prev.type == "compaction" or prev.type == "message":
            break
        cut -= 1
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start_index)
    return CutPointResult(cut, turn_start, not is_user and turn_start != -1)


# ---------------------------------------------------------------------------- file operations


@dataclass(slots=True)
class FileOperations:
    """Paths the agent read, wrote and edited (from ``read``/``write``/``edit`` tool calls)."""

    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)


def extract_file_ops_from_message(message: Any, ops: FileOperations) -> None:
    """Add the ``path`` argument of an assistant message's read/write/edit tool calls."""
    if message.role != "assistant":
        return
    for b in message.content:
        if b.type != "toolCall":
            continue
        args = b.arguments
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or not path:
            continue
        if b.name == "read":
            ops.read.add(path)
        elif b.name == "write":
            ops.written.add(path)
        elif b.name == "edit":
            ops.edited.add(path)


def compute_file_lists(ops: FileOperations) -> tuple[list[str], list[str]]:
    """``(read_files, modified_files)``: files only read, and files written or edited; sorted."""
    modified = ops.edited | ops.written
    return sorted(ops.read - modified), sorted(modified)


def format_file_operations(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    """The ``<read-files>`` / ``<modified-files>`` blocks pi appends to a summary ("" if none)."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


# ---------------------------------------------------------------------------- preparation


@dataclass(slots=True)
class CompactionPreparation:
    """Everything ``compact()`` needs (and what ``session_before_compact`` handlers see)."""

    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    """History before the cut (or before the split turn) that the summary replaces."""
    turn_prefix_messages: list[AgentMessage]
    """For a split turn: the turn's messages before the cut, summarized separately."""
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings


@dataclass(slots=True)
class CompactionResult:
    """What to persist: ``SessionManager.append_compaction(summary, first_kept_entry_id, tokens_before, details)``."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    """pi's default: ``{"readFiles": [...], "modifiedFiles": [...]}``."""


def prepare_compaction(
    path_entries: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """Plan a compaction of the branch ``path_entries`` (root → leaf).

    ``None`` when the branch already ends with a compaction. Only entries after the
    previous compaction are candidates; its summary becomes ``previous_summary`` and its
    file lists carry over (unless an extension wrote it).
    """
    n = len(path_entries)
    if n and path_entries[-1].type == "compaction":
        return None
    prev = -1
    for i in range(n - 1, -1, -1):
        if path_entries[i].type == "compaction":
            prev = i
            break
    start = prev + 1
    usage_messages = [m for e in path_entries[max(prev, 0):] if (m := message_of(e)) is not None]
    tokens_before = estimate_context_tokens(usage_messages).tokens

    cut = find_cut_point(path_entries, start, n, settings.keep_recent_tokens)
    if cut.first_kept_entry_index >= n:
        return None
    first_kept_id = path_entries[cut.first_kept_entry_index].id
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = [m for e in path_entries[start:history_end] if (m := message_of(e)) is not None]
    prefix: list[AgentMessage] = []
    if cut.is_split_turn:
        prefix = [m for e in path_entries[cut.turn_start_index:cut.first_kept_entry_index]
                  if (m := message_of(e)) is not None]

    previous_summary: str | None = None
    ops = FileOperations()
    if prev >= 0:
        pc = path_entries[prev]
        assert isinstance(pc, CompactionEntry)
        previous_summary = pc.summary
        d = pc.details
        if not pc.from_hook and isinstance(d, dict):
            if isinstance(d.get("readFiles"), list):
                ops.read.update(f for f in d["readFiles"] if isinstance(f, str))
            if isinstance(d.get("modifiedFiles"), list):
                ops.edited.update(f for f in d["modifiedFiles"] if isinstance(f, str))
    for m in to_summarize:
        extract_file_ops_from_message(m, ops)
    for m in prefix:
        extract_file_ops_from_message(m, ops)
    return CompactionPreparation(first_kept_id, to_summarize, prefix, cut.is_split_turn, tokens_before,
                                 previous_summary, ops, settings)


# ---------------------------------------------------------------------------- serialization and prompts

TOOL_RESULT_MAX_CHARS = 2000


def _truncate_for_summary(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n\n[... {len(text) - max_chars} more characters truncated]"


def _js_json(v: Any) -> str:
    return orjson.dumps(v).decode()


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
            texts: list[str] = []
            thinking: list[str] = []
            calls: list[str] = []
            for b in m.content:
                if b.type == "text":
                    texts.append(b.text)
                elif b.type == "thinking":
                    thinking.append(b.thinking)
                else:
                    args = b.arguments if isinstance(b.arguments, dict) else {}
                    calls.append(f"{b.name}(" + ", ".join(f"{k}={_js_json(v)}" for k, v in args.items()) + ")")
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if texts:
                parts.append("[Assistant]: " + "\n".join(texts))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        else:
            text = "".join(b.text for b in m.content if b.type == "text")
            if text:
                parts.append(f"[Tool result]: {_truncate_for_summary(text, TOOL_RESULT_MAX_CHARS)}")
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


async def _complete(
    model: Model, provider: Provider, prompt: str, max_tokens: int, signal: AbortSignal | None,
    api_key: str | None, what: str,
) -> str:
    context = Context(SUMMARIZATION_SYSTEM_PROMPT, [UserMessage([TextContent(prompt)])])
    stream = provider.stream(model, context, StreamOptions(signal=signal, api_key=api_key, max_tokens=max_tokens))
    reply = await stream.result()
    if reply.stop_reason == "error":
        raise CompactionError(f"{what} failed: {reply.error_message or 'Unknown error'}")
    if reply.stop_reason == "aborted":
        raise CompactionError(f"{what} was aborted: {reply.error_message or 'Request was aborted'}")
    return "\n".join(b.text for b in reply.content if isinstance(b, TextContent))


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
    """Ask the model for a structured summary of ``messages`` (max tokens: 80% of the reserve)."""
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


async def compact(
    preparation: CompactionPreparation, model: Model, provider: Provider, *,
    custom_instructions: str | None = None, signal: AbortSignal | None = None, api_key: str | None = None,
) -> CompactionResult:
    """Summarize a prepared compaction through ``provider`` and return what to persist.

    A split turn makes two model calls, history first, then the turn prefix (pi runs them
    in parallel; autocue runs them in order so a scripted provider sees a fixed order).
    Raises ``CompactionError`` when a call fails or is aborted.
    """
    p = preparation
    reserve = p.settings.reserve_tokens
    if p.is_split_turn and p.turn_prefix_messages:
        history = (
            await generate_summary(p.messages_to_summarize, model, provider, reserve, signal=signal,
                                   custom_instructions=custom_instructions, previous_summary=p.previous_summary,
                                   api_key=api_key)
            if p.messages_to_summarize else "No prior history."
        )
        prefix = await generate_turn_prefix_summary(p.turn_prefix_messages, model, provider, reserve,
                                                    signal=signal, api_key=api_key)
        summary = history + SPLIT_TURN_SEPARATOR + prefix
    else:
        summary = await generate_summary(p.messages_to_summarize, model, provider, reserve, signal=signal,
                                         custom_instructions=custom_instructions,
                                         previous_summary=p.previous_summary, api_key=api_key)
    read_files, modified_files = compute_file_lists(p.file_ops)
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(summary, p.first_kept_entry_id, p.tokens_before,
                            {"readFiles": read_files, "modifiedFiles": modified_files})


# ---------------------------------------------------------------------------- branch summaries


BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)

BRANCH_SUMMARY_PROMPT = """Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages."""


class _BranchSource(Protocol):
    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]: ...

    def get_entry(self, entry_id: str) -> SessionEntry | None: ...


@dataclass(slots=True)
class CollectEntriesResult:
    entries: list[SessionEntry]
    """The entries of the branch being left, oldest first (old leaf back to the common ancestor)."""
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    session: _BranchSource, old_leaf_id: str | None, target_id: str | None
) -> CollectEntriesResult:
    """What navigating from ``old_leaf_id`` to ``target_id`` leaves behind (pi's
    ``collectEntriesForBranchSummary``); compactions on the way are included."""
    if old_leaf_id is None:
        return CollectEntriesResult([], None)
    old_path = {e.id for e in session.get_branch(old_leaf_id)}
    target_path = session.get_branch(target_id) if target_id is not None else []
    ancestor = next((e.id for e in reversed(target_path) if e.id in old_path), None)
    entries: list[SessionEntry] = []
    current: str | None = old_leaf_id
    while current is not None and current != ancestor:
        entry = session.get_entry(current)
        if entry is None:
            break
        entries.append(entry)
        current = entry.parent_id
    entries.reverse()
    return CollectEntriesResult(entries, ancestor)


@dataclass(slots=True)
class BranchPreparation:
    messages: list[AgentMessage]
    file_ops: FileOperations
    total_tokens: int


def _branch_message(entry: SessionEntry) -> AgentMessage | None:
    if entry.type == "message" and entry.role == "toolResult":  # type: ignore[union-attr]
        return None  # the assistant's tool call carries the context
    return message_of(entry)


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> BranchPreparation:
    """The newest messages of a branch that fit ``token_budget`` (0: no limit), plus the file
    operations of the whole branch (earlier branch summaries' lists included)."""
    ops = FileOperations()
    for e in entries:
        if isinstance(e, BranchSummaryEntry) and not e.from_hook and isinstance(e.details, dict):
            d = e.details
            if isinstance(d.get("readFiles"), list):
                ops.read.update(f for f in d["readFiles"] if isinstance(f, str))
            if isinstance(d.get("modifiedFiles"), list):
                ops.edited.update(f for f in d["modifiedFiles"] if isinstance(f, str))
    picked: list[AgentMessage] = []
    total = 0
    for e in reversed(entries):
        m = _branch_message(e)
        if m is None:
            continue
        extract_file_ops_from_message(m, ops)
        tokens = estimate_tokens(m)
        if token_budget > 0 and total + tokens > token_budget:
            if (e.type == "compaction" or e.type == "branch_summary") and total < token_budget * 0.9:
                picked.append(m)
                total += tokens
            break
        picked.append(m)
        total += tokens
    picked.reverse()
    return BranchPreparation(picked, ops, total)


@dataclass(slots=True)
class BranchSummaryResult:
    """``summary`` (preamble + the model's text + file lists) with its file lists; or
    ``aborted`` / ``error`` when the model call did not succeed."""

    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None

    @property
    def details(self) -> dict[str, list[str]]:
        """What pi stores in the ``branch_summary`` entry's ``details``."""
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


async def generate_branch_summary(
    entries: Sequence[SessionEntry], model: Model, provider: Provider, *, signal: AbortSignal | None = None,
    custom_instructions: str | None = None, reserve_tokens: int = 16384, api_key: str | None = None,
) -> BranchSummaryResult:
    """Summarize the branch being left through ``provider`` (pi's ``generateBranchSummary``).

    The newest messages that fit ``context_window - reserve_tokens`` are serialized;
    ``custom_instructions`` replace the default prompt.
    """
    prep = prepare_branch_entries(entries, (model.context_window or 128_000) - reserve_tokens)
    if not prep.messages:
        return BranchSummaryResult(summary="No content to summarize")
    text = serialize_conversation(convert_to_llm(prep.messages))
    prompt = f"<conversation>\n{text}\n</conversation>\n\n{custom_instructions or BRANCH_SUMMARY_PROMPT}"
    context = Context(SUMMARIZATION_SYSTEM_PROMPT, [UserMessage([TextContent(prompt)])])
    stream = provider.stream(model, context, StreamOptions(signal=signal, api_key=api_key, max_tokens=2048))
    reply = await stream.result()
    if reply.stop_reason == "aborted":
        return BranchSummaryResult(aborted=True)
    if reply.stop_reason == "error":
        return BranchSummaryResult(error=reply.error_message or "Summarization failed")
    read_files, modified_files = compute_file_lists(prep.file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + "\n".join(b.text for b in reply.content if isinstance(b, TextContent))
    summary += format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary, read_files, modified_files)


__all__ = [
    "BRANCH_SUMMARY_PREAMBLE", "BRANCH_SUMMARY_PROMPT", "BranchPreparation", "BranchSummaryResult",
    "CollectEntriesResult", "collect_entries_for_branch_summary", "generate_branch_summary",
    "prepare_branch_entries",
    "OVERFLOW_PATTERNS", "SPLIT_TURN_SEPARATOR", "SUMMARIZATION_PROMPT", "SUMMARIZATION_SYSTEM_PROMPT",
    "TOOL_RESULT_MAX_CHARS", "TURN_PREFIX_SUMMARIZATION_PROMPT", "UPDATE_SUMMARIZATION_PROMPT",
    "CompactionPreparation", "CompactionResult", "CompactionSettings", "ContextUsageEstimate", "CutPointResult",
    "FileOperations", "build_summary_prompt", "calculate_context_tokens", "compact", "compute_file_lists",
    "estimate_context_tokens", "estimate_tokens", "extract_file_ops_from_message", "find_cut_point",
    "find_turn_start_index", "format_file_operations", "generate_summary", "generate_turn_prefix_summary",
    "get_context_tokens", "get_last_assistant_usage", "is_context_overflow", "prepare_compaction",
    "serialize_conversation", "should_compact",
]
