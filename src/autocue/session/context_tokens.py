"""Token accounting of a session's context, as pi does it: chars/4 estimates, the last reply's
usage, and overflow detection. Compaction (``compaction.py``) decides with these when to compact
and where to cut."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from autocue.llm.types import AssistantMessage, Usage
from autocue.session.entries import MessageEntry, SessionEntry


def calculate_context_tokens(usage: Usage) -> int:
    """Context size from a reply's usage: ``total_tokens``, else the sum of its parts."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def _assistant_usage(m: Any) -> Usage | None:
    if m.role == "assistant" and m.stop_reason != "error" and m.stop_reason != "aborted":
        return m.usage  # type: ignore[no-any-return]
    return None


def get_last_assistant_usage(entries: Sequence[SessionEntry]) -> Usage | None:
    """The usage of the last successful assistant message among the entries."""
    return next((u for e in reversed(entries) if type(e) is MessageEntry and e.role == "assistant"
                 and (u := _assistant_usage(e.message)) is not None), None)


def estimate_tokens(message: Any) -> int:
    """pi's chars/4 estimate of one agent message (conservative; images 1200 tokens each)."""
    role = message.role
    if role == "user" or role == "custom" or role == "toolResult" or role == "assistant":
        content = message.content
        if isinstance(content, str):
            chars = len(content)
        else:
            chars = 0
            for b in content:
                t = b.type
                if t == "text":
                    chars += len(b.text)
                elif t == "thinking":
                    chars += len(b.thinking)
                elif t == "toolCall":
                    chars += len(b.name) + len(orjson.dumps(b.arguments).decode())
                elif t == "image":
                    chars += 4800  # an image counts as 1200 tokens
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


__all__ = [
    "OVERFLOW_PATTERNS", "ContextUsageEstimate", "calculate_context_tokens", "estimate_context_tokens",
    "estimate_tokens", "get_context_tokens", "get_last_assistant_usage", "is_context_overflow",
]
