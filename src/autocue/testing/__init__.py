"""The in-process test harness: the playbook is the model.

    from autocue.testing import create_test_session, when, call, say, think, parallel, fail, CANCEL
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports
from autocue.testing.dsl import (
    CANCEL,
    Action,
    Reply,
    SubagentAction,
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

if TYPE_CHECKING:  # loaded on first use (see __getattr__); mypy sees the real types
    from autocue.sandbox import SandboxResult, verify_sandbox_install
    from autocue.script.every_tool import call_every_tool, structured_output
    from autocue.testing.mock_llm import MockLLM
    from autocue.testing.scenario_runner import run_scenario

__all__ = [
    "CANCEL", "Action", "ExtensionLoadError", "HarnessError", "HarnessWarning",
    "Playbook", "PlaybookError", "PlaybookExhaustedError", "PlaybookNotConsumedError",
    "Reply", "TestEvents", "TestSession", "ToolCallRecord", "ToolExecutionError",
    "ToolResultRecord", "TurnSpec", "UICallRecord", "UnknownToolError", "call", "create_test_session", "fail",
    "parallel", "say", "think", "when",
    "FakeMCPServer", "FakeTool", "fake_mcp_server",
    "SandboxResult", "run_scenario", "verify_sandbox_install",
    "SubagentAction", "subagent", "MockLLM", "call_every_tool", "structured_output",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.testing.scenario_runner": ["run_scenario"],
    "autocue.sandbox": ["SandboxResult", "verify_sandbox_install"],
    "autocue.testing.mock_llm": ["MockLLM"],
    "autocue.script.every_tool": ["call_every_tool", "structured_output"],
})
"""Names loaded on first use: the scenario runner, the sandbox check and the mock LLM pull in more of autocue.
The sandbox check is the package ``autocue.sandbox`` (a layer above this one, built on the
harness); these two names are re-exported here for the callers that import them from
``autocue.testing`` (docs/architecture.md, "face re-exports")."""
