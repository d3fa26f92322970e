"""The extension API: extensions subscribe to session events, register tools, commands and flags.

An extension is a module with ``def extension(api)`` (sync or async) or a factory callable::

    def extension(api):
        @api.on("tool_call")
        def guard(event, ctx):
            if event.tool_name == "bash" and "rm -rf" in event.input.get("command", ""):
                return {"block": True, "reason": "dangerous command"}

See ``docs/extensions.md`` for every event and its merge semantics.
"""

from autocue.extensions.api import DeliverAs, EventBus, ExtensionAPI
from autocue.extensions.context import ContextUsage, ExtensionCommandContext, ExtensionContext, ReadonlySessionManager
from autocue.extensions.events import (
    EVENT_NAMES,
    BeforeAgentStartEvent,
    BeforeAgentStartResult,
    BeforeProviderRequestEvent,
    CompactionOverride,
    ContextEvent,
    ContextResult,
    CustomMessageSpec,
    ExtensionErrorEvent,
    InputEvent,
    InputResult,
    ModelSelectEvent,
    ResourcesDiscoverEvent,
    ResourcesDiscoverResult,
    SessionBeforeCompactEvent,
    SessionBeforeResult,
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionCompactEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionSwitchEvent,
    SessionTreeEvent,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
    ToolResultPatch,
)
from autocue.extensions.exec import ExecResult, run_exec
from autocue.extensions.extension import (
    CommandInfo,
    Extension,
    ExtensionRuntimeError,
    RegisteredCommand,
    RegisteredFlag,
)
from autocue.extensions.loader import (
    ENTRY_POINT_GROUP,
    ExtensionFactory,
    ExtensionSpec,
    ExtensionsResult,
    LoadError,
    default_agent_dir,
    discover_extension_paths,
    finish_loading,
    load_extensions,
)
from autocue.extensions.runner import ExtensionRunner
from autocue.extensions.ui import CANCELLED, NO_UI, Cancelled, ExtensionUIContext, NoUIContext, run_dialog

__all__ = [
    "CANCELLED", "ENTRY_POINT_GROUP", "EVENT_NAMES", "NO_UI", "BeforeAgentStartEvent", "BeforeAgentStartResult",
    "BeforeProviderRequestEvent", "Cancelled", "CommandInfo", "CompactionOverride", "ContextEvent",
    "ContextResult", "ContextUsage", "CustomMessageSpec", "DeliverAs", "EventBus", "ExecResult", "Extension",
    "ExtensionAPI", "ExtensionCommandContext", "ExtensionContext", "ExtensionErrorEvent", "ExtensionFactory",
    "ExtensionRunner", "ExtensionRuntimeError", "ExtensionSpec", "ExtensionUIContext", "ExtensionsResult",
    "InputEvent", "InputResult", "LoadError", "ModelSelectEvent", "NoUIContext", "ReadonlySessionManager",
    "RegisteredCommand", "RegisteredFlag", "ResourcesDiscoverEvent", "ResourcesDiscoverResult",
    "SessionBeforeCompactEvent", "SessionBeforeResult", "SessionBeforeSwitchEvent", "SessionBeforeTreeEvent",
    "SessionCompactEvent", "SessionShutdownEvent", "SessionStartEvent", "SessionSwitchEvent", "SessionTreeEvent",
    "ToolCallEvent", "ToolCallResult", "ToolResultEvent", "ToolResultPatch", "default_agent_dir",
    "discover_extension_paths", "finish_loading", "load_extensions", "run_dialog", "run_exec",
]
