"""The in-process test harness: the playbook is the model.

    from autocue.testing import create_test_session, when, call, say, think, parallel, fail, CANCEL
"""

from autocue.testing.dsl import (
    CANCEL,
    Action,
    CallAction,
    FailAction,
    ParallelAction,
    SayAction,
    SubagentAction,
    ThinkAction,
    TurnSpec,
    call,
    fail,
    parallel,
    say,
    subagent,
    think,
    when,
)
from autocue.testing.errors import (
    ExtensionLoadError,
    HarnessError,
    PlaybookError,
    PlaybookExhaustedError,
    PlaybookNotConsumedError,
    ToolExecutionError,
    UnknownToolError,
)
from autocue.testing.events import TestEvents
from autocue.testing.fake_mcp import FakeMCPServer, FakeTool, fake_mcp_server
from autocue.testing.playbook import Playbook
from autocue.testing.records import HarnessWarning, ToolCallRecord, ToolResultRecord, UICallRecord
from autocue.testing.session import TestSession, create_test_session

__all__ = [
    "CANCEL", "Action", "CallAction", "ExtensionLoadError", "FailAction", "HarnessError", "HarnessWarning",
    "ParallelAction", "Playbook", "PlaybookError", "PlaybookExhaustedError", "PlaybookNotConsumedError",
    "SayAction", "TestEvents", "TestSession", "ThinkAction", "ToolCallRecord", "ToolExecutionError",
    "ToolResultRecord", "TurnSpec", "UICallRecord", "UnknownToolError", "call", "create_test_session", "fail",
    "parallel", "say", "think", "when",
    "FakeMCPServer", "FakeTool", "fake_mcp_server",
    "SubagentAction", "subagent",
]


def __getattr__(name: str) -> object:
    # Lazy: the scenario runner and sandbox check pull in more of autocue.
    if name == "run_scenario":
        from autocue.testing.scenario_runner import run_scenario

        return run_scenario
    if name in ("verify_sandbox_install", "SandboxResult"):
        from autocue.testing import sandbox

        return getattr(sandbox, name)
    raise AttributeError(f"module 'autocue.testing' has no attribute {name!r}")
