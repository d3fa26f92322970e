"""Codex (``@openai/codex``): OpenAI Responses only, through a custom provider.

``CODEX_HOME`` is a fresh dir; a custom provider (``model_providers.mock``) points at the run's
``/v1`` URL with the session key in ``MOCK_API_KEY`` (no WebSocket attempt, unlike the built-in
provider); analytics and the update check are off; the workspace is trusted; ``exec`` runs with
``--sandbox workspace-write`` (its default sandbox is read-only: a refused write still exits 0)
and the TUI with ``--ask-for-approval never``.
"""

from autocue.runner.agents.base import AgentProfile

_CONFIG = ("-c", "model_provider=mock", "-c", "model=mock-model",
           "-c", 'model_providers.mock={name="mock",base_url="{openai_base_url}",env_key="MOCK_API_KEY",'
                 'wire_api="responses"}',
           "-c", "analytics.enabled=false", "-c", "check_for_update_on_startup=false",
           "-c", 'projects."{workspace}".trust_level="trusted"', "--sandbox", "workspace-write")

PROFILE = AgentProfile(
    name="codex",
    binary="codex",
    print_args=("exec", "--skip-git-repo-check", *_CONFIG, "{prompt}"),
    tui_args=(*_CONFIG, "--ask-for-approval", "never"),
    apis={"openai-responses": {}},
    env={"CODEX_HOME": "{home}/.codex", "MOCK_API_KEY": "{api_key}"},
    dirs=(".codex",),
    tool_profile="codex",
    package="@openai/codex",
    version="0.169.0",
    verified=("0.169.0",),
    ready="Ask Codex to do anything",
    side_requests=("title (TUI: a tool-less 'single-line task title' request)",),
    quit_input="<ctrl-c><ctrl-c>",
    notes="Responses only (`wire_api=responses`); everything runs through exec_command",
)
