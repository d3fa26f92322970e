"""The session layer: ``AgentSession``, the JSONL session tree (``SessionManager``), compaction and retry.

* ``AgentSession`` / ``create_agent_session``: the runtime (prompt, continue, steer, follow-up,
  abort, subscribe, slash commands, auto-retry, auto-compaction, extensions).
* ``SessionManager``: the append-only pi v3 JSONL tree (``create``, ``open``, ``in_memory``, ...).
* ``compaction``: token accounting, cut points and ``compact()``.
* ``Settings`` / ``RetrySettings`` / ``CompactionSettings``: JSON settings (user, then project).
* ``resources``: skills and prompt templates.
"""

from autocue.session.agent_session import (
    AgentSession,
    SessionBusyError,
    SessionDisposedError,
    SessionListener,
    ToolInfo,
)
from autocue.session.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    compact,
    prepare_compaction,
    should_compact,
)
from autocue.session.context_tokens import get_context_tokens, is_context_overflow
from autocue.session.entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from autocue.session.errors import (
    CompactionError,
    EntryNotFoundError,
    SessionError,
    SessionFileError,
    SessionFileNotFoundError,
)
from autocue.session.events import (
    AgentSessionEvent,
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    ExtensionErrorEvent,
)
from autocue.session.factory import CreateAgentSessionResult, create_agent_session
from autocue.session.manager import SessionManager, SessionTreeNode
from autocue.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    agent_message_from_json,
    convert_message,
    convert_to_llm,
)
from autocue.session.resources import PromptTemplate, Resources, Skill, load_resources
from autocue.session.retry import RetrySettings, is_retryable_error, retry_delay_ms
from autocue.session.session_context import SessionContext
from autocue.session.settings import Settings, SettingsError
from autocue.session.subagent_types import AgentType
from autocue.session.ttsr import TtsrRule, TtsrTriggeredEvent

__all__ = [
    "CURRENT_SESSION_VERSION", "AgentSession", "AgentSessionEvent", "AutoCompactionEndEvent",
    "AutoCompactionStartEvent", "AutoRetryEndEvent", "AutoRetryStartEvent", "BashExecutionMessage",
    "BranchSummaryEntry", "BranchSummaryMessage", "CompactionEntry", "CompactionError", "CompactionPreparation",
    "CompactionResult", "CompactionSettings", "CompactionSummaryMessage", "CreateAgentSessionResult", "CustomEntry",
    "CustomMessage", "CustomMessageEntry", "EntryNotFoundError", "ExtensionErrorEvent", "LabelEntry",
    "MessageEntry", "ModelChangeEntry", "PromptTemplate", "Resources", "RetrySettings", "SessionBusyError",
    "SessionContext", "SessionDisposedError", "SessionEntry", "SessionError", "SessionFileError",
    "SessionFileNotFoundError", "SessionHeader",
    "SessionInfoEntry", "SessionListener", "SessionManager", "SessionTreeNode", "Settings", "SettingsError",
    "Skill", "ThinkingLevelChangeEntry", "ToolInfo", "agent_message_from_json", "compact", "convert_message",
    "convert_to_llm", "create_agent_session", "get_context_tokens", "is_context_overflow", "is_retryable_error",
    "load_resources", "prepare_compaction", "retry_delay_ms", "should_compact",
    "AgentType", "TtsrRule", "TtsrTriggeredEvent",
]
