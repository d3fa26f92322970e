"""``autocue acp-agent``: ``autocue mock-agent --format acp``, an ACP agent on stdio that plays a scenario
(see autocue.runner.acp_agent).

    autocue acp-agent SCENARIO [--scenario NAME] [--ask-permission TOOL]...
"""

from __future__ import annotations

from autocue.cli import mock_agent


def main(argv: list[str]) -> int:
    return mock_agent.main(["--format", "acp", *argv], prog="autocue acp-agent")
