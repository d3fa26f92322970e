"""Interactive mode: a line-based terminal session (``autocue`` with a TTY and no ``-p``).

Each line you type is a prompt; the reply streams as it arrives (thinking dimmed, tool calls
shown as ``→ name {args}`` and their results as ``✓``/``✗`` lines). Ctrl-C while the agent
runs aborts the run; Ctrl-D or ``/quit`` leaves. Colors are off with ``color=False`` (the CLI turns them off
for ``NO_COLOR`` or ``TERM=dumb``). Built-in slash commands:

``/help``, ``/quit`` (``/exit``), ``/model [provider/model]``, ``/models``,
``/thinking [level]``, ``/new``, ``/compact [instructions]``, ``/session``, ``/tools``,
``/name NAME``. Any other ``/command`` goes to the session (extension commands, prompt
templates, ``/skill:name``). Extension dialogs are asked on the terminal (``TerminalUI``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Sequence
from typing import IO, Any

from autocue.extensions.ui import CANCELLED, BaseUI, Cancelled, NotifyLevel, TextDialog, WidgetPlacement, run_dialog
from autocue.llm.abort import AbortSignal
from autocue.llm.registry import ModelRegistry
from autocue.llm.stream import THINKING_LEVELS
from autocue.session.agent_session import AgentSession

DIM, RESET, RED, GREEN, CYAN = "\x1b[2m", "\x1b[0m", "\x1b[31m", "\x1b[32m", "\x1b[36m"

HELP = """commands:
  /model [provider/model]   show or switch the model      /models    list models
  /thinking [level]         show or set the thinking level ({levels})
  /new                      start a new session           /compact   compact the context
  /session                  session file and usage        /tools     active tools
  /name NAME                name this session             /quit      leave (or Ctrl-D)
  /export [FILE.html]       write the session as one HTML page (autocue view)
Ctrl-C while the agent runs aborts it."""


class TerminalUI(BaseUI):
    """Extension dialogs on a plain terminal (reads answers with ``input()`` in a thread)."""

    def __init__(self, out: IO[str], color: bool = True) -> None:
        self.out = out
        self.color = color

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def _ask(self, prompt: str, timeout: float | None, signal: AbortSignal | None) -> str | Cancelled:
        async def read() -> str:
            return await asyncio.to_thread(input, prompt)

        try:
            return await run_dialog(read(), timeout=timeout, signal=signal)
        except EOFError:
            return CANCELLED

    async def _text(
        self, kind: TextDialog, title: str, detail: Any, timeout: float | None, signal: AbortSignal | None
    ) -> str | Cancelled | None:
        if kind == "input":
            return await self._ask(f"{title}{f' ({detail})' if detail else ''}: ", timeout, signal)
        if kind == "editor":
            if detail:
                self._say(detail)
            return await self._ask(f"{title}: ", timeout, signal)
        options: Sequence[str] = detail
        self._say(title)
        for i, o in enumerate(options, 1):
            self._say(f"  {i}. {o}")
        r = await self._ask("choose a number (empty to cancel): ", timeout, signal)
        if isinstance(r, Cancelled) or not r.strip():
            return CANCELLED
        try:
            return options[int(r) - 1]
        except (ValueError, IndexError):
            return r if r in options else CANCELLED

    async def _confirm(
        self, title: str, message: str, timeout: float | None, signal: AbortSignal | None
    ) -> bool | Cancelled:
        self._say(title + (f"\n{message}" if message else ""))
        r = await self._ask("[y/N] ", timeout, signal)
        if isinstance(r, Cancelled):
            return r
        return r.strip().lower() in ("y", "yes")

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self._say(f"[{level}] {message}")

    def set_status(self, key: str, text: str | None) -> None:
        if text:
            self._say(f"[{key}] {text}")

    def set_widget(
        self, key: str, lines: Sequence[str] | None, *, placement: WidgetPlacement = "aboveEditor"
    ) -> None:
        for line in lines or ():
            self._say(line)

    def set_title(self, title: str) -> None:
        self.out.write(f"\x1b]0;{title}\x07")
        self.out.flush()


class _Printer:
    """Turns session events into streamed terminal output."""

    def __init__(self, out: IO[str], color: bool) -> None:
        self.out = out
        self.color = color
        self.col = 0

    def c(self, code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if self.color else text

    def write(self, s: str) -> None:
        self.out.write(s)
        self.out.flush()
        if s:
            self.col = 0 if s.endswith("\n") else self.col + len(s)

    def newline(self) -> None:
        if self.col:
            self.write("\n")

    def __call__(self, ev: Any) -> None:
        t = getattr(ev, "type", "")
        if t == "message_update":
            a = ev.assistant_message_event
            at = a.type
            if at == "text_delta":
                self.write(a.delta)
            elif at == "thinking_delta":
                self.write(self.c(DIM, a.delta))
            elif at in ("text_end", "thinking_end"):
                self.newline()
        elif t == "tool_execution_start":
            self.newline()
            args = json.dumps(ev.args, ensure_ascii=False) if ev.args else ""
            if len(args) > 200:
                args = args[:200] + "…"
            self.write(self.c(CYAN, f"→ {ev.tool_name} {args}") + "\n")
        elif t == "tool_execution_end":
            text = _result_text(ev.result)
            first = text.splitlines()[0] if text else ""
            mark = self.c(RED, "✗") if ev.is_error else self.c(GREEN, "✓")
            self.write(f"{mark} {ev.tool_name}{': ' + first[:160] if first else ''}\n")
        elif t == "message_end":
            m = ev.message
            if getattr(m, "role", "") == "assistant" and m.stop_reason in ("error", "aborted"):
                self.newline()
                self.write(self.c(RED, m.error_message or m.stop_reason) + "\n")
        elif t == "auto_retry_start":
            self.newline()
            self.write(
                self.c(DIM, f"retrying ({ev.attempt}/{ev.max_attempts}) in {ev.delay_ms} ms: {ev.error_message}")
                + "\n"
            )
        elif t == "auto_compaction_start":
            self.write(self.c(DIM, f"compacting ({ev.reason})…") + "\n")
        elif t == "extension_error":
            self.newline()
            self.write(self.c(RED, f"Extension error ({ev.extension_path}): {ev.error}") + "\n")


def _result_text(result: Any) -> str:
    content = getattr(result, "content", None)
    if isinstance(content, list):
        return "\n".join(getattr(b, "text", "") for b in content if getattr(b, "text", None))
    return str(result) if result is not None else ""


async def run_interactive(
    session: AgentSession, registry: ModelRegistry, *, out: IO[str], color: bool = True, initial: Sequence[str] = ()
) -> int:
    p = _Printer(out, color)
    unsubscribe = session.subscribe(p)
    loop = asyncio.get_running_loop()
    if isinstance(session.ui, TerminalUI):
        session.ui.color = color
    m = session.model
    p.write(p.c(DIM, f"autocue · {m.provider}/{m.id} · {session.cwd} · /help for commands") + "\n")
    pending = list(initial)
    try:
        while True:
            if pending:
                line = pending.pop(0)
            else:
                try:
                    line = await asyncio.to_thread(input, "> ")
                except (EOFError, KeyboardInterrupt):
                    p.write("\n")
                    break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                r = await _builtin(line, session, registry, p)
                if r == "quit":
                    break
                if r == "done":
                    continue
            task = asyncio.ensure_future(session.prompt(line))
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signal.SIGINT, session.abort_nowait)
            try:
                await task
            except Exception as e:
                p.newline()
                p.write(p.c(RED, f"{type(e).__name__}: {e}") + "\n")
            finally:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signal.SIGINT)
            p.newline()
    finally:
        unsubscribe()
        await session.dispose()
    return 0


async def _builtin(line: str, session: AgentSession, registry: ModelRegistry, p: _Printer) -> str | None:
    """Run a built-in slash command: ``"done"``, ``"quit"``, or None when ``line`` is not one."""
    name, _, arg = line[1:].partition(" ")
    arg = arg.strip()
    match name:
        case "quit" | "exit":
            return "quit"
        case "help":
            p.write(HELP.format(levels=", ".join(THINKING_LEVELS)) + "\n")
            cmds = session.get_commands()
            if cmds:
                p.write("session commands:\n")
                for c in cmds:
                    p.write(f"  /{c.name:<24} {c.description or ''}\n")
        case "model":
            if arg:
                try:
                    model = registry.find(arg)
                except ValueError as e:
                    p.write(p.c(RED, str(e)) + "\n")
                    return "done"
                await session.set_model(model)
            m = session.model
            p.write(f"model: {m.provider}/{m.id} ({m.api}, {m.base_url or 'no base url'})\n")
        case "models":
            for m in registry.models():
                p.write(f"  {m.provider}/{m.id}\n")
        case "thinking":
            try:
                if arg:
                    session.set_thinking_level(arg)
                p.write(f"thinking: {session.thinking_level}\n")
            except ValueError as e:
                p.write(p.c(RED, str(e)) + "\n")
        case "new":
            ok = await session.new_session()
            p.write("new session\n" if ok else "cancelled by an extension\n")
        case "compact":
            try:
                await session.compact(arg or None)
                p.write("compacted\n")
            except Exception as e:
                p.write(p.c(RED, f"compaction failed: {e}") + "\n")
        case "export":
            from autocue.view.export import export_session_html

            try:
                p.write(f"wrote {export_session_html(session.session_manager, session.cwd, arg or None)}\n")
            except (OSError, ValueError) as e:
                p.write(p.c(RED, f"/export: {e}") + "\n")
        case "session":
            sm = session.session_manager
            u = session.get_context_usage()
            p.write(
                f"file: {sm.get_session_file() or '(not written yet / in memory)'}\nid: {sm.get_session_id()}\n"
                f"messages: {len(session.messages)}\ncontext: {u.tokens} tokens\n"
            )
        case "tools":
            p.write(", ".join(session.get_active_tool_names()) + "\n")
        case "name":
            if arg:
                session.set_session_name(arg)
        case _:
            return None
    return "done"


__all__ = ["TerminalUI", "run_interactive"]
