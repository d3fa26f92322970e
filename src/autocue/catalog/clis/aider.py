"""aider (``aider-chat``, PyPI): chat, Anthropic or Responses through litellm; no tool calls.

Edits come back as text, so it has no tool profile: the runner turns the scenario's ``writeFile`` /
``editFile`` calls into aider's ``diff`` edit blocks (``autocue.runner.agents.aider``), which aider
applies. Its git integration, update check, analytics and model warnings are off; ``--yes-always``
confirms edits to files not yet in the chat.
"""

from __future__ import annotations

from autocue.catalog.cli import AgentCli
from autocue.catalog.launch import AgentProfile

_FLAGS = ("--model", "{aider_model}", "--edit-format", "diff", "--yes-always", "--no-git", "--no-check-update",
          "--no-show-release-notes", "--analytics-disable", "--no-show-model-warnings", "--no-auto-lint",
          "--no-auto-test", "--no-stream")

PROFILE = AgentProfile(
    name="aider",
    binary="aider",
    print_args=(*_FLAGS, "--no-pretty", "--no-fancy-input", "--message", "{prompt}"),
    tui_args=(*_FLAGS, "--no-fancy-input"),
    apis={"openai": {"aider_model": "openai/mock-gpt"},
          "anthropic": {"aider_model": "anthropic/claude-sonnet-4-5"},
          "openai-responses": {"aider_model": "openai/responses/mock-resp"}},
    env={"OPENAI_API_BASE": "{openai_base_url}", "OPENAI_API_KEY": "{api_key}", "ANTHROPIC_BASE_URL": "{base_url}",
         "ANTHROPIC_API_KEY": "{api_key}", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "AIDER_CHECK_UPDATE": "false"},
    tool_profile=None,
    package="aider-chat",
    installer="pip",
    version="0.86.2",
    verified=("0.86.2",),
    quit_input="/exit<enter>",
    notes="no tools: writeFile/editFile become diff edit blocks in the reply text",
)

CLI = AgentCli(launch=PROFILE)
