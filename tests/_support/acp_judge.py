"""An ACP client built on the official ``acp`` package (``ClientSideConnection`` through
``spawn_agent_process``), used by tests/runner/test_acp_agent*.py as the judge of ``autocue acp-agent``:
it serves ``fs/*`` from the disk and ``terminal/*`` with real processes (each in its own process
group), answers permission requests from a list, and records what it saw."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)


@dataclass
class Terminal:
    proc: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None


@dataclass
class JudgeClient:
    answers: list[str] = field(default_factory=list)
    """The option ids to answer permission requests with, in order (``allow_once`` when none is left)."""
    updates: list[Any] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    terminals: dict[str, Terminal] = field(default_factory=dict)
    started: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a terminal's command started."""

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any,
                                 **kw: Any) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        answer = self.answers.pop(0) if self.answers else "allow_once"
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append(update)

    async def read_text_file(self, path: str, session_id: str, line: int | None = None, limit: int | None = None,
                             **kw: Any) -> ReadTextFileResponse:
        self.calls.append(("fs/read_text_file", path))
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(self, content: str, path: str, session_id: str, **kw: Any) -> WriteTextFileResponse:
        self.calls.append(("fs/write_text_file", path))
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def create_terminal(self, command: str, session_id: str, args: list[str] | None = None,
                              cwd: str | None = None, env: Any = None, output_byte_limit: int | None = None,
                              **kw: Any) -> CreateTerminalResponse:
        self.calls.append(("terminal/create", [command, *(args or [])]))
        proc = await asyncio.create_subprocess_exec(command, *(args or []), cwd=cwd, start_new_session=True,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        term = Terminal(proc)

        async def read() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(4096):
                term.output += chunk

        term.reader = asyncio.create_task(read())
        tid = f"term_{len(self.terminals) + 1}"
        self.terminals[tid] = term
        self.started.set()
        return CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kw: Any) -> WaitForTerminalExitResponse:
        self.calls.append(("terminal/wait_for_exit", terminal_id))
        term = self.terminals[terminal_id]
        code = await term.proc.wait()
        if term.reader is not None:
            await term.reader
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None,
                                           signal=signal.Signals(-code).name if code < 0 else None)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> TerminalOutputResponse:
        self.calls.append(("terminal/output", terminal_id))
        term = self.terminals[terminal_id]
        code = term.proc.returncode
        status = TerminalExitStatus(exit_code=code) if code is not None else None
        return TerminalOutputResponse(output=term.output.decode(), truncated=False, exit_status=status)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.calls.append(("terminal/kill", terminal_id))
        self._kill(self.terminals[terminal_id])

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.calls.append(("terminal/release", terminal_id))
        term = self.terminals.pop(terminal_id)
        self._kill(term)
        await term.proc.wait()

    @staticmethod
    def _kill(term: Terminal) -> None:
        if term.proc.returncode is None:
            os.killpg(term.proc.pid, signal.SIGKILL)

    def methods(self) -> list[str]:
        return [m for m, _ in self.calls]

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def text(self) -> str:
        return "".join(u.content.text for u in self.updates if u.session_update == "agent_message_chunk")


def capabilities(fs: bool = True, terminal: bool = True) -> ClientCapabilities:
    return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal)


def spawn_acp_agent(client: JudgeClient, scenario: Path, *options: str) -> Any:
    """``python -m autocue acp-agent SCENARIO OPTIONS`` as a subprocess, connected to ``client``
    (``acp.spawn_agent_process``: an async context manager of ``(connection, process)``)."""
    env = {k: os.environ[k] for k in ("PYTHONPATH", "XDG_CACHE_HOME") if k in os.environ}  # acp passes few on
    return spawn_agent_process(client, sys.executable, "-m", "autocue", "acp-agent", str(scenario), *options, env=env)


__all__ = ["PROTOCOL_VERSION", "JudgeClient", "capabilities", "spawn_acp_agent", "text_block"]
