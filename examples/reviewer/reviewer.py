"""reviewer: an autocue extension for code review that uses subagents, MCP and TTSR.

* ``/review PATH`` asks the model to review PATH: read the team's style guide from the
  ``style`` MCP server (``mcp__style__guidelines``), fan out ``explore`` subagents (the built-in
  ``task`` tool, one task per area), then file the result with ``review_report``;
* ``review_report {summary, findings}`` records the review (``api.append_entry("review", ...)``)
  and refuses a report without findings for a non-empty review;
* a TTSR rule ``no-todo``: a reply that starts writing "TODO" or "FIXME" is cut there and the
  model is asked again with "Do not leave TODOs in a review: say what to change."

Configure the MCP server in ``.autocue/mcp.json`` (``{"mcpServers": {"style": {...}}}``); the
tests give it with ``create_test_session(mcp_servers={"style": server})``.
"""

from __future__ import annotations

from typing import Any

NO_TODO = {
    "name": "no-todo",
    "trigger": r"\b(TODO|FIXME)\b",
    "text": "Do not leave TODOs in a review: say what to change.",
    "repeat_mode": "repeat-after-gap",
    "repeat_gap": 2,
}


def extension(api: Any) -> None:
    reports: list[dict[str, Any]] = []

    api.add_ttsr_rule(**NO_TODO)

    def review_report(summary: str, findings: list[str] | None = None) -> str:
        """File the review: a one-paragraph summary and one line per finding (file:line: what to change)."""
        items = list(findings or [])
        if not items and "no problems" not in summary.lower():
            raise ValueError("a review with problems needs findings: give one 'file:line: what to change' each")
        reports.append({"summary": summary, "findings": items})
        api.append_entry("review", {"summary": summary, "findings": items})
        return f"Review filed with {len(items)} finding(s)."

    api.register_tool(review_report)

    async def review(args: str, ctx: Any) -> None:
        path = args.strip() or "."
        await api.send_user_message(
            f"Review {path}. First read the style guide with mcp__style__guidelines, then run explore "
            "subagents with the task tool (one task per area), then call review_report."
        )

    api.register_command("review", review, description="Review a path: /review PATH")
