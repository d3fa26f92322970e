"""Branch summaries, as pi does them: what navigating the tree leaves behind, summarized.

``collect_entries_for_branch_summary(session, old_leaf, target)`` finds the entries left
behind (old leaf back to the common ancestor); ``prepare_branch_entries(entries, budget)`` picks
the newest messages that fit and the files touched; ``async generate_branch_summary(entries,
model, provider, ...)`` → ``BranchSummaryResult`` asks the model through the provider (pi's
preamble and prompt, file lists appended; ``details`` for the ``branch_summary`` entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from autocue.llm.abort import AbortSignal
from autocue.llm.stream import Provider
from autocue.llm.types import Model
from autocue.session.context_tokens import estimate_tokens
from autocue.session.entries import BranchSummaryEntry, SessionEntry, message_of
from autocue.session.messages import AgentMessage, convert_to_llm
from autocue.session.summarization import (
    FileOperations,
    ask_summarizer,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
    reply_text,
    serialize_conversation,
)

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
    old_path = session.get_branch(old_leaf_id)
    old_ids = {e.id for e in old_path}
    target_path = session.get_branch(target_id) if target_id is not None else []
    ancestor = next((e.id for e in reversed(target_path) if e.id in old_ids), None)
    start = next((i + 1 for i, e in enumerate(old_path) if e.id == ancestor), 0)
    return CollectEntriesResult(old_path[start:], ancestor)


@dataclass(slots=True)
class BranchPreparation:
    messages: list[AgentMessage]
    file_ops: FileOperations
    total_tokens: int


def prepare_branch_entries(entries: Sequence[SessionEntry], token_budget: int = 0) -> BranchPreparation:
    """The newest messages of a branch that fit ``token_budget`` (0: no limit), plus the file
    operations of the whole branch (earlier branch summaries' lists included)."""
    ops = FileOperations()
    for e in entries:
        if isinstance(e, BranchSummaryEntry) and not e.from_hook:
            ops.add_previous(e.details)
    picked: list[AgentMessage] = []
    total = 0
    for e in reversed(entries):
        # a tool result is left out: the assistant's tool call carries the context
        if (e.type == "message" and e.role == "toolResult") or (m := message_of(e)) is None:  # type: ignore[union-attr]
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
    reply = await ask_summarizer(model, provider, prompt, 2048, signal, api_key)
    if reply.stop_reason == "aborted":
        return BranchSummaryResult(aborted=True)
    if reply.stop_reason == "error":
        return BranchSummaryResult(error=reply.error_message or "Summarization failed")
    read_files, modified_files = compute_file_lists(prep.file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + reply_text(reply) + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary, read_files, modified_files)


__all__ = [
    "BRANCH_SUMMARY_PREAMBLE", "BRANCH_SUMMARY_PROMPT", "BranchPreparation", "BranchSummaryResult",
    "CollectEntriesResult", "collect_entries_for_branch_summary", "generate_branch_summary", "prepare_branch_entries",
]
