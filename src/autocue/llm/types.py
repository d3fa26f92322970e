"""Provider-neutral LLM types: content blocks, messages, usage, models and context.

Python attributes are snake_case; the JSON form (``to_json`` / ``from_json``) uses pi's
camelCase field names and key order, so session files stay byte-compatible with pi v3.
Serialization is hand-written per class: no reflection on the hot path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
STOP_REASONS: frozenset[str] = frozenset({"stop", "length", "toolUse", "error", "aborted"})

JSON: TypeAlias = dict[str, Any]


def now_ms() -> int:
    """Milliseconds since the epoch, the unit of every ``timestamp`` on a message."""
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------- content blocks


@dataclass(slots=True)
class TextContent:
    text: str
    text_signature: str | None = None
    type: ClassVar[Literal["text"]] = "text"

    def to_json(self) -> JSON:
        d: JSON = {"type": "text", "text": self.text}
        if self.text_signature is not None:
            d["textSignature"] = self.text_signature
        return d


@dataclass(slots=True)
class ThinkingContent:
    thinking: str
    thinking_signature: str | None = None
    redacted: bool = False
    type: ClassVar[Literal["thinking"]] = "thinking"

    def to_json(self) -> JSON:
        d: JSON = {"type": "thinking", "thinking": self.thinking}
        if self.thinking_signature is not None:
            d["thinkingSignature"] = self.thinking_signature
        if self.redacted:
            d["redacted"] = True
        return d


@dataclass(slots=True)
class ImageContent:
    data: str
    """Base64-encoded image bytes."""
    mime_type: str
    type: ClassVar[Literal["image"]] = "image"

    def to_json(self) -> JSON:
        return {"type": "image", "data": self.data, "mimeType": self.mime_type}


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    thought_signature: str | None = None
    type: ClassVar[Literal["toolCall"]] = "toolCall"

    def to_json(self) -> JSON:
        d: JSON = {"type": "toolCall", "id": self.id, "name": self.name, "arguments": self.arguments}
        if self.thought_signature is not None:
            d["thoughtSignature"] = self.thought_signature
        return d


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall
ContentBlock: TypeAlias = TextContent | ThinkingContent | ImageContent | ToolCall


def content_from_json(d: JSON) -> ContentBlock:
    """Parse one content block from its JSON form; raises ``ValueError`` on an unknown type."""
    t = d.get("type")
    if t == "text":
        return TextContent(d["text"], d.get("textSignature"))
    if t == "toolCall":
        return ToolCall(d["id"], d["name"], d.get("arguments") or {}, d.get("thoughtSignature"))
    if t == "thinking":
        return ThinkingContent(d["thinking"], d.get("thinkingSignature"), bool(d.get("redacted", False)))
    if t == "image":
        return ImageContent(d["data"], d["mimeType"])
    raise ValueError(f"unknown content block type {t!r} (expected text, thinking, image or toolCall)")


# ---------------------------------------------------------------------------- usage


@dataclass(slots=True)
class Cost:
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    total: float = 0

    def to_json(self) -> JSON:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "total": self.total,
        }

    @staticmethod
    def from_json(d: JSON) -> Cost:
        return Cost(
            d.get("input", 0),
            d.get("output", 0),
            d.get("cacheRead", 0),
            d.get("cacheWrite", 0),
            d.get("total", 0),
        )


class Usage:
    """Tokens of one reply (or a total) and what they cost. ``cost`` is made on first use."""

    __slots__ = ("_cost", "cache_read", "cache_write", "input", "output", "total_tokens")

    def __init__(
        self,
        input: int = 0,
        output: int = 0,
        cache_read: int = 0,
        cache_write: int = 0,
        total_tokens: int = 0,
        cost: Cost | None = None,
    ) -> None:
        self.input = input
        self.output = output
        self.cache_read = cache_read
        self.cache_write = cache_write
        self.total_tokens = total_tokens
        self._cost = cost

    @property
    def cost(self) -> Cost:
        c = self._cost
        if c is None:
            c = self._cost = Cost()
        return c

    @cost.setter
    def cost(self, value: Cost) -> None:
        self._cost = value

    def _key(self) -> tuple[Any, ...]:
        return (self.input, self.output, self.cache_read, self.cache_write, self.total_tokens, self.cost)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Usage):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return (
            f"Usage(input={self.input!r}, output={self.output!r}, cache_read={self.cache_read!r}, "
            f"cache_write={self.cache_write!r}, total_tokens={self.total_tokens!r}, cost={self.cost!r})"
        )

    @staticmethod
    def of(input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
        """Usage with ``total_tokens`` computed from the parts."""
        return Usage(input, output, cache_read, cache_write, input + output + cache_read + cache_write)

    def to_json(self) -> JSON:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.total_tokens,
            "cost": self.cost.to_json(),
        }

    @staticmethod
    def from_json(d: JSON) -> Usage:
        cost = d.get("cost")
        return Usage(
            d.get("input", 0),
            d.get("output", 0),
            d.get("cacheRead", 0),
            d.get("cacheWrite", 0),
            d.get("totalTokens", 0),
            Cost.from_json(cost) if isinstance(cost, dict) else Cost(),
        )

    def add(self, other: Usage) -> None:
        """Accumulate ``other`` into this usage (for turn and run totals)."""
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.total_tokens += other.total_tokens
        c, o = self.cost, other.cost
        c.input += o.input
        c.output += o.output
        c.cache_read += o.cache_read
        c.cache_write += o.cache_write
        c.total += o.total


# ---------------------------------------------------------------------------- messages


@dataclass(slots=True)
class UserMessage:
    content: str | list[UserContent]
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["user"]] = "user"

    def to_json(self) -> JSON:
        c = self.content
        return {
            "role": "user",
            "content": c if isinstance(c, str) else [b.to_json() for b in c],
            "timestamp": self.timestamp,
        }

    @property
    def text(self) -> str:
        """The text blocks joined with newlines (or the plain string content)."""
        c = self.content
        if isinstance(c, str):
            return c
        return "\n".join(b.text for b in c if isinstance(b, TextContent))


@dataclass(slots=True)
class AssistantMessage:
    content: list[AssistantContent] = field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = field(default_factory=now_ms)
    response_id: str | None = None
    error_status: int | None = field(default=None, compare=False)
    """HTTP status of a failed call (not part of the JSON form)."""
    retry_after: float | None = field(default=None, compare=False)
    """Seconds the server asked to wait before a retry (not part of the JSON form)."""
    role: ClassVar[Literal["assistant"]] = "assistant"

    def to_json(self) -> JSON:
        d: JSON = {
            "role": "assistant",
            "content": [b.to_json() for b in self.content],
            "api": self.api,
            "provider": self.provider,
            "model": self.model,
            "usage": self.usage.to_json(),
            "stopReason": self.stop_reason,
        }
        d["timestamp"] = self.timestamp
        if self.response_id is not None:
            d["responseId"] = self.response_id
        if self.error_message is not None:
            d["errorMessage"] = self.error_message
        return d

    @property
    def text(self) -> str:
        """The text blocks joined with newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


@dataclass(slots=True)
class ToolResultMessage:
    tool_call_id: str
    tool_name: str
    content: list[UserContent]
    details: Any = None
    is_error: bool = False
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["toolResult"]] = "toolResult"

    def to_json(self) -> JSON:
        d: JSON = {
            "role": "toolResult",
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "content": [b.to_json() for b in self.content],
        }
        if self.details is not None:
            d["details"] = self.details
        d["isError"] = self.is_error
        d["timestamp"] = self.timestamp
        return d

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


def _user_content_list(raw: Any) -> list[UserContent]:
    out: list[UserContent] = []
    for b in raw:
        block = content_from_json(b)
        if not isinstance(block, (TextContent, ImageContent)):
            raise ValueError(f"content block of type {block.type!r} is not allowed here")
        out.append(block)
    return out


def message_from_json(d: JSON) -> Message:
    """Parse a ``user``, ``assistant`` or ``toolResult`` message from its JSON form.

    Raises ``ValueError`` (naming the field) for other roles or malformed messages.
    """
    role = d.get("role")
    try:
        if role == "assistant":
            content: list[AssistantContent] = []
            for b in d.get("content") or []:
                block = content_from_json(b)
                if isinstance(block, ImageContent):
                    raise ValueError("assistant messages cannot hold image blocks")
                content.append(block)
            usage = d.get("usage")
            return AssistantMessage(
                content=content,
                api=d.get("api", ""),
                provider=d.get("provider", ""),
                model=d.get("model", ""),
                usage=Usage.from_json(usage) if isinstance(usage, dict) else Usage(),
                stop_reason=d.get("stopReason", "stop"),
                error_message=d.get("errorMessage"),
                timestamp=d.get("timestamp", 0),
                response_id=d.get("responseId"),
            )
        if role == "user":
            c = d["content"]
            return UserMessage(c if isinstance(c, str) else _user_content_list(c), d.get("timestamp", 0))
        if role == "toolResult":
            return ToolResultMessage(
                tool_call_id=d["toolCallId"],
                tool_name=d.get("toolName", ""),
                content=_user_content_list(d.get("content") or []),
                details=d.get("details"),
                is_error=bool(d.get("isError", False)),
                timestamp=d.get("timestamp", 0),
            )
    except KeyError as e:
        raise ValueError(f"{role} message is missing field {e.args[0]!r}") from None
    raise ValueError(f"unknown message role {role!r} (expected user, assistant or toolResult)")


# ---------------------------------------------------------------------------- model, tools, context


@dataclass(slots=True)
class ModelCost:
    """Prices in dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(slots=True)
class Model:
    id: str
    api: str
    provider: str
    name: str = ""
    base_url: str = ""
    reasoning: bool = False
    input: list[str] = field(default_factory=lambda: ["text"])
    cost: ModelCost = field(default_factory=ModelCost)
    context_window: int = 128_000
    max_tokens: int = 16_384
    headers: dict[str, str] = field(default_factory=dict)
    compat: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.id

    def usage_cost(self, usage: Usage) -> Cost:
        """The dollar cost of ``usage`` at this model's prices."""
        c = self.cost
        cost = Cost(
            usage.input * c.input / 1e6,
            usage.output * c.output / 1e6,
            usage.cache_read * c.cache_read / 1e6,
            usage.cache_write * c.cache_write / 1e6,
        )
        cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
        return cost


@dataclass(slots=True)
class Tool:
    """What the model is told about a tool: name, description and JSON-Schema parameters."""

    name: str
    description: str
    parameters: JSON

    def to_json(self) -> JSON:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(slots=True)
class Context:
    system_prompt: str | None
    messages: list[Message]
    tools: list[Tool] = field(default_factory=list)
    response_schema: JSON | None = None
    """The JSON Schema the answer must satisfy, when the request declares one (structured output)."""
