"""An end-to-end demo: the mock server plays a scenario to a real agent over HTTP.

``run_demo(out=print)`` writes a small project and a scenario to a temporary directory,
starts the server on the scenario, and runs autocue's own agent against it through the
real Anthropic Messages provider with real ``read`` / ``write`` tools. The agent reads a
file, fixes a typo, and answers; the scenario's ``assert`` step checks the fix before the
last reply is sent (the file exists, and the write's result is in the conversation). It
prints a readable transcript and the session status, and returns 0 when the whole scenario
was played with every assertion passing.

    python -m autocue.mockllm.demo
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCENARIO = """\
name: fix-greeting
initialPrompt: Fix the typo in greeting.txt
timeline:
  - llmResponse:
      - think: [[200, "I should read the file first."]]
      - assistant: [[100, "Let me read greeting.txt."]]
      - agentToolUse: {toolName: readFile, args: {path: greeting.txt}}
  - llmResponse:
      - think: [[150, "'Helo' should be 'Hello'."]]
      - agentToolUse: {toolName: writeFile, args: {path: greeting.txt, content: "Hello, world!\\n"}}
  - assert:
      fs: {exists: [greeting.txt]}
      text: {contains: ["Successfully wrote"]}
  - llmResponse:
      - assistant: [[100, "Fixed: greeting.txt now says \\"Hello, world!\\"."]]
"""


def run_demo(out: Callable[[str], Any] = print) -> int:
    from autocue.agent import Agent
    from autocue.llm.providers import create_provider
    from autocue.llm.types import Model, TextContent, ThinkingContent, ToolCall
    from autocue.mockllm.server import serve
    from autocue.tools import create_builtin_tools

    with tempfile.TemporaryDirectory(prefix="autocue-demo-") as tmp:
        root = Path(tmp)
        (root / "greeting.txt").write_text("Helo, world!\n")
        scenario = root / "fix-greeting.yaml"
        scenario.write_text(SCENARIO)
        with serve(scenario, workspace=root) as server:
            out(f"mock LLM server on {server.base_url}, scenario 'fix-greeting'")
            model = Model(id="mock-claude", api="anthropic-messages", provider="mock", base_url=server.base_url,
                          reasoning=True)
            tools = create_builtin_tools(root, ["read", "write", "edit", "bash"])
            agent = Agent(provider=create_provider("anthropic-messages"), model=model, tools=list(tools.values()),
                          get_api_key=lambda _provider: "demo-session")

            def show(ev: Any) -> None:
                if ev.type == "message_end" and ev.message.role == "assistant":
                    for b in ev.message.content:
                        if isinstance(b, ThinkingContent):
                            out(f"  [thinking] {b.thinking}")
                        elif isinstance(b, TextContent):
                            out(f"  assistant: {b.text}")
                        elif isinstance(b, ToolCall):
                            out(f"  -> {b.name}({b.arguments})")
                    if ev.message.error_message:
                        out(f"  !! {ev.message.error_message}")
                elif ev.type == "tool_execution_end":
                    text = " ".join(c.text for c in ev.result.content if isinstance(c, TextContent))
                    out(f"  <- {ev.tool_name}: {text.strip()[:80]}")

            agent.subscribe(show)
            out("user: Fix the typo in greeting.txt")
            asyncio.run(agent.prompt("Fix the typo in greeting.txt"))
            status = server.session("demo-session")
        out(f"greeting.txt: {(root / 'greeting.txt').read_text().strip()!r}")
        passed = sum(1 for a in status["assertions"] if a["passed"])
        out(f"session: {status['consumed']}/{status['total']} replies played, profile {status['profile']}, "
            f"{passed}/{len(status['assertions'])} assertion(s) passed, errors: {len(status['errors'])}")
        ok = status["remaining"] == 0 and not status["errors"] and status["assertions_failed"] == 0
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_demo())
