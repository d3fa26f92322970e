"""The agent core: ``Agent``, ``agent_loop``, ``AgentTool`` and the ``AgentEvent`` union."""

from typing import TYPE_CHECKING

from autocue.agent.tool import (  # eager: ``tool`` is also a module here, which would shadow a lazy name
    AgentTool,
    OnUpdate,
    ToolArgumentsError,
    ToolResult,
    to_tool_result,
    tool,
    tool_from_function,
    tool_from_model,
)
from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.agent.agent import Agent, AgentBusyError, AgentState, Listener
    from autocue.agent.events import (
        AgentEndEvent,
        AgentEvent,
        AgentMessage,
        AgentStartEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
        ToolTiming,
        TurnEndEvent,
        TurnMetrics,
        TurnStartEvent,
    )
    from autocue.agent.loop import (
        AfterToolCallContext,
        AfterToolCallResult,
        AgentContext,
        AgentLoopConfig,
        BeforeToolCallResult,
        ToolCallContext,
        agent_loop,
        agent_loop_continue,
        default_convert_message,
    )

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.agent.agent": ["Agent", "AgentBusyError", "AgentState", "Listener"],
    "autocue.agent.events": ["AgentEndEvent", "AgentEvent", "AgentMessage", "AgentStartEvent", "MessageEndEvent",
                             "MessageStartEvent", "MessageUpdateEvent", "ToolExecutionEndEvent",
                             "ToolExecutionStartEvent", "ToolExecutionUpdateEvent", "ToolTiming", "TurnEndEvent",
                             "TurnMetrics", "TurnStartEvent"],
    "autocue.agent.loop": ["AfterToolCallContext", "AfterToolCallResult", "AgentContext", "AgentLoopConfig",
                           "BeforeToolCallResult", "ToolCallContext", "agent_loop", "agent_loop_continue",
                           "default_convert_message"],
})


__all__ = [
    "AfterToolCallContext", "AfterToolCallResult", "Agent", "AgentBusyError", "AgentContext",
    "AgentEndEvent", "AgentEvent", "AgentLoopConfig", "AgentMessage", "AgentStartEvent", "AgentState",
    "AgentTool", "BeforeToolCallResult", "Listener", "MessageEndEvent", "MessageStartEvent",
    "MessageUpdateEvent", "OnUpdate", "ToolArgumentsError", "ToolCallContext", "ToolExecutionEndEvent",
    "ToolExecutionStartEvent", "ToolExecutionUpdateEvent", "ToolResult", "ToolTiming", "TurnEndEvent",
    "TurnMetrics", "TurnStartEvent", "agent_loop", "agent_loop_continue", "default_convert_message",
    "to_tool_result", "tool", "tool_from_function", "tool_from_model",
]
