"""A tiny ACP client, the program under test: it starts the agent given after ``--``, sends one prompt,
approves every permission request, prints one line per tool call and writes what the agent said to
``--out``. Exit 0 when the turn ended normally (``end_turn``), 1 otherwise.

    python bot.py --out reply.txt --cwd DIR "the prompt" -- AGENT-COMMAND...

``test_bot.py`` tests it against ``autocue acp-agent``, a deterministic ACP agent playing a scenario.
"""

import argparse
import asyncio
import os
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse


class Bot:
    def __init__(self) -> None:
        self.text: list[str] = []

    async def request_permission(self, options, session_id, tool_call, **kw):  # type: ignore[no-untyped-def]
        print(f"[bot] approving: {tool_call.title}")
        allow = next(o for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))

    async def session_update(self, session_id, update, **kw):  # type: ignore[no-untyped-def]
        if update.session_update == "agent_message_chunk":
            self.text.append(update.content.text)
        elif update.session_update == "tool_call":
            print(f"[bot] tool: {update.title}")
        elif update.session_update == "tool_call_update" and update.status in ("completed", "failed"):
            print(f"[bot]   -> {update.status}")


async def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--cwd", default=".")
    p.add_argument("prompt")
    p.add_argument("agent", nargs="+")
    args = p.parse_args()
    bot = Bot()
    # the agent inherits the bot's environment (acp passes on only a few variables by default)
    async with spawn_agent_process(bot, *args.agent, cwd=args.cwd, env=dict(os.environ)) as (conn, _proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(Path(args.cwd).resolve()), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block(args.prompt)])
    Path(args.out).write_text("".join(bot.text) + "\n", encoding="utf-8")
    print(f"[bot] {reply.stop_reason}")
    return 0 if reply.stop_reason == "end_turn" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
