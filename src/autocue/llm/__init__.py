"""Provider-neutral LLM layer: messages, content blocks, usage, models, the stream protocol."""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.llm.abort import AbortController, AbortError, AbortSignal
    from autocue.llm.events import (
        AssistantMessageEvent,
        DoneEvent,
        ErrorEvent,
        StartEvent,
        TextDeltaEvent,
        TextEndEvent,
        TextStartEvent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ThinkingStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )
    from autocue.llm.stream import (
        THINKING_LEVELS,
        AssistantMessageEventStream,
        Provider,
        StreamOptions,
        ThinkingLevel,
        error_message,
        error_stream,
        guarded,
    )
    from autocue.llm.types import (
        STOP_REASONS,
        AssistantContent,
        AssistantMessage,
        ContentBlock,
        Context,
        Cost,
        ImageContent,
        Message,
        Model,
        ModelCost,
        StopReason,
        TextContent,
        ThinkingContent,
        Tool,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserContent,
        UserMessage,
        content_from_json,
        message_from_json,
        now_ms,
    )

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.llm.abort": ["AbortController", "AbortError", "AbortSignal"],
    "autocue.llm.events": ["AssistantMessageEvent", "DoneEvent", "ErrorEvent", "StartEvent", "TextDeltaEvent",
                           "TextEndEvent", "TextStartEvent", "ThinkingDeltaEvent", "ThinkingEndEvent",
                           "ThinkingStartEvent", "ToolCallDeltaEvent", "ToolCallEndEvent", "ToolCallStartEvent"],
    "autocue.llm.stream": ["THINKING_LEVELS", "AssistantMessageEventStream", "Provider", "StreamOptions",
                           "ThinkingLevel", "error_message", "error_stream", "guarded"],
    "autocue.llm.types": ["STOP_REASONS", "AssistantContent", "AssistantMessage", "ContentBlock", "Context", "Cost",
                          "ImageContent", "Message", "Model", "ModelCost", "StopReason", "TextContent",
                          "ThinkingContent", "Tool", "ToolCall", "ToolResultMessage", "Usage", "UserContent",
                          "UserMessage", "content_from_json", "message_from_json", "now_ms"],
})


__all__ = [
    "STOP_REASONS", "THINKING_LEVELS", "AbortController", "AbortError", "AbortSignal",
    "AssistantContent", "AssistantMessage", "AssistantMessageEvent", "AssistantMessageEventStream",
    "ContentBlock", "Context", "Cost", "DoneEvent", "ErrorEvent", "ImageContent", "Message", "Model",
    "ModelCost", "Provider", "StartEvent", "StopReason", "StreamOptions", "TextContent", "TextDeltaEvent",
    "TextEndEvent", "TextStartEvent", "ThinkingContent", "ThinkingDeltaEvent", "ThinkingEndEvent",
    "ThinkingLevel", "ThinkingStartEvent", "Tool", "ToolCall", "ToolCallDeltaEvent", "ToolCallEndEvent",
    "ToolCallStartEvent", "ToolResultMessage", "Usage", "UserContent", "UserMessage", "content_from_json",
    "error_message", "error_stream", "guarded", "message_from_json", "now_ms",
]
