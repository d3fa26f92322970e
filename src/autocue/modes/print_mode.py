"""Print and JSON modes: run the given prompts once, then exit.

``run_print(session, prompts, mode="text"|"json", stdout=..., stderr=...) -> int``

- text (``autocue -p "..."``): prints the last assistant reply's text. If that reply ended
  with stop reason ``error`` or ``aborted`` its ``errorMessage`` goes to stderr and the exit
  code is 1 (as pi does).
- json (``--mode json``): line 1 is the session header, then every session event (agent
  events, ``auto_*``, ``extension_error``) as one JSON line. Same exit code rule.

Extensions run without a UI (``has_ui`` false); their errors are written to stderr as
``Extension error (<path>): <message>``.
"""

from __future__ import annotations

from typing import IO, Any, Literal

from autocue.llm.types import AssistantMessage
from autocue.modes.common import event_json, write_json_line
from autocue.session.agent_session import AgentSession


async def run_print(
    session: AgentSession,
    prompts: list[str],
    *,
    mode: Literal["text", "json"] = "text",
    stdout: IO[bytes],
    stderr: IO[str],
) -> int:
    if mode == "json":
        write_json_line(stdout, session.session_manager.get_header().to_json())

    def on_event(ev: Any) -> None:
        t = getattr(ev, "type", None)
        if t == "extension_error":
            stderr.write(f"Extension error ({ev.extension_path}): {ev.error}\n")
            stderr.flush()
        if mode == "json":
            write_json_line(stdout, event_json(ev))

    unsubscribe = session.subscribe(on_event)
    try:
        for text in prompts:
            await session.prompt(text)
            last = _last_assistant(session)
            if last is not None and last.stop_reason in ("error", "aborted"):
                break
    finally:
        unsubscribe()
    last = _last_assistant(session)
    if last is None:
        return 0
    if last.stop_reason in ("error", "aborted"):
        stderr.write((last.error_message or f"Request {last.stop_reason}") + "\n")
        stderr.flush()
        return 1
    if mode == "text":
        text = last.text
        if text:
            stdout.write(text.encode() + b"\n")
            stdout.flush()
    return 0


def _last_assistant(session: AgentSession) -> AssistantMessage | None:
    for m in reversed(session.messages):
        if isinstance(m, AssistantMessage):
            return m
    return None


__all__ = ["run_print"]
