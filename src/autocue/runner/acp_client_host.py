"""The client side an ACP agent calls back: permission answers, the workspace's files, terminals.

- ``session/request_permission``: answered from the next queued timeline answer
  (``agentPermissionRequest: allow | deny | OPTION_ID``), else from the scenario's policy
  (``acp: {permissions: allow | deny | {default: allow, tools: {NAME_OR_KIND: allow | deny}}}``,
  default ``allow``): ``allow`` picks the first ``allow_once`` (else ``allow_always``) option, ``deny``
  the first ``reject_once`` (else ``reject_always``), an option id that option; no such option: the
  request is answered ``cancelled``. A tool's entry matches its tool call's ``kind`` exactly or a word
  of its ``title`` (case-insensitive).
- ``fs/read_text_file`` / ``fs/write_text_file``: real files of the workspace; a path outside it is refused
  (a JSON-RPC error the agent sees).
- ``terminal/*``: real processes started with ``autocue.process.spawn`` (their own process groups) in the
  workspace; every one still running is killed (SIGTERM, then SIGKILL) when the run ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from autocue.process import Child, exit_future, spawn
from autocue.runner.errors import AcpSpecError

TERM_GRACE = 1.0
Spawner = Callable[..., Child]
"""``autocue.process.spawn`` or a sandbox's ``exec``: ``(argv, *, cwd, env, stdin, stdout, stderr) -> Child``."""
OUTPUT_LIMIT = 1_000_000


def policy_of(spec: object) -> tuple[str, dict[str, str]]:
    """``(default answer, {tool name or kind: answer})`` of an ``acp.permissions`` value."""
    if spec is None:
        return "allow", {}
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, dict) and set(spec) <= {"default", "tools"}:
        tools = spec.get("tools") or {}
        if not isinstance(tools, dict):
            raise AcpSpecError(f"acp.permissions.tools: expected {{NAME_OR_KIND: allow | deny}}, got {tools!r}")
        return str(spec.get("default", "allow")), {str(k).lower(): str(v) for k, v in tools.items()}
    raise AcpSpecError(f"acp.permissions: expected allow, deny or {{default: ..., tools: {{NAME: allow|deny}}}}, "
                      f"got {spec!r}")


def pick(answer: str, options: list[PermissionOption]) -> str | None:
    """The option id ``answer`` (allow, deny, or an option id) selects (None: none fits)."""
    kinds = {"allow": ("allow_once", "allow_always"), "deny": ("reject_once", "reject_always")}.get(answer)
    if kinds is None:
        return answer if any(o.option_id == answer for o in options) else None
    for k in kinds:
        for o in options:
            if o.kind == k:
                return o.option_id
    return None


@dataclass(slots=True)
class Terminal:
    child: Child
    exited: asyncio.Future[int]
    limit: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None

    def status(self) -> TerminalExitStatus | None:
        if not self.exited.done():
            return None
        code = self.exited.result()
        return TerminalExitStatus(exit_code=code if code >= 0 else None,
                                  signal=None if code >= 0 else str(-code))


@dataclass(slots=True)
class Host:
    """The runner's answers to an agent's calls (see the module docstring)."""

    workspace: Path
    env: dict[str, str]
    default: str = "allow"
    tools: dict[str, str] = field(default_factory=dict)
    queued: deque[tuple[str, str]] = field(default_factory=deque)
    """Timeline answers ``(answer, position)`` for the next requests, in order."""
    terminals: dict[str, Terminal] = field(default_factory=dict)
    answered: list[str] = field(default_factory=list)
    """What each permission request was answered (for the transcript)."""
    problems: list[str] = field(default_factory=list)
    """Timeline answers that fit no option: reported as failures."""
    spawn: Spawner = field(default=spawn)
    """Starts the agent and its terminals: ``autocue.process.spawn``, or the run sandbox's ``exec``."""
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    # ------------------------------------------------------------------ permissions
    def permission(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> RequestPermissionResponse:
        title, kind = (tool_call.title or ""), (str(tool_call.kind or ""))
        if self.queued:
            answer, pos = self.queued.popleft()
            how = f"the timeline's agentPermissionRequest at {pos}"
        else:
            words = {w.lower() for w in title.replace("`", " ").split()} | {kind.lower(), title.lower()}
            answer = next((a for t, a in self.tools.items() if t in words), self.default)
            how = "the scenario's permissions policy"
        chosen = pick(answer, options)
        self.answered.append(f"{title or kind or tool_call.tool_call_id}: {answer} -> {chosen or 'cancelled'} ({how})")
        if chosen is None:
            if answer not in ("allow", "deny"):
                self.problems.append(f"{how}: {answer!r} is none of the request's options "
                                     f"({', '.join(o.option_id for o in options)})")
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=chosen, outcome="selected"))

    # ------------------------------------------------------------------ files
    def _path(self, path: str) -> Path:
        p = Path(path)
        full = (p if p.is_absolute() else self.workspace / p).resolve()
        if not full.is_relative_to(self.workspace.resolve()):
            raise RequestError.invalid_params({"path": path, "reason": f"outside the workspace {self.workspace}"})
        return full

    def read(self, path: str, line: int | None, limit: int | None) -> ReadTextFileResponse:
        full = self._path(path)
        try:
            text = full.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        except (OSError, UnicodeDecodeError) as e:
            raise RequestError.internal_error({"path": path, "reason": str(e)}) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            text = "".join(lines[start:start + limit] if limit is not None else lines[start:])
        return ReadTextFileResponse(content=text)

    def write(self, path: str, content: str) -> WriteTextFileResponse:
        full = self._path(path)
        try:
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_text(content, encoding="utf-8")
        except OSError as e:
            raise RequestError.internal_error({"path": path, "reason": str(e)}) from None
        return WriteTextFileResponse()

    # ------------------------------------------------------------------ terminals
    async def create_terminal(self, command: str, args: list[str] | None, env: list[EnvVariable] | None,
                              cwd: str | None, limit: int | None) -> CreateTerminalResponse:
        argv = [command, *args] if args else ["sh", "-c", command]
        run_env = {**self.env, **{v.name: v.value for v in env or []}}
        where = self._path(cwd) if cwd else self.workspace
        try:
            child = self.spawn(argv, cwd=where, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as e:
            raise RequestError.internal_error({"command": command, "reason": str(e)}) from None
        loop = asyncio.get_running_loop()
        term = Terminal(child, exit_future(child.proc, loop), limit or OUTPUT_LIMIT)
        term.reader = asyncio.create_task(self._read(term))
        tid = f"term-{next(self._ids)}"
        self.terminals[tid] = term
        return CreateTerminalResponse(terminal_id=tid)

    async def _read(self, term: Terminal) -> None:
        out = term.child.proc.stdout
        assert out is not None
        loop = asyncio.get_running_loop()
        fd = out.fileno()
        os.set_blocking(fd, False)
        done: asyncio.Future[None] = loop.create_future()

        def ready() -> None:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                loop.remove_reader(fd)
                if not done.done():
                    done.set_result(None)
                return
            term.output += data
            if len(term.output) > term.limit:  # keep the end, cut at a character boundary
                cut = len(term.output) - term.limit
                while cut < len(term.output) and (term.output[cut] & 0xC0) == 0x80:
                    cut += 1
                del term.output[:cut]
                term.truncated = True

        loop.add_reader(fd, ready)
        try:
            await done
        finally:
            with contextlib.suppress(Exception):
                loop.remove_reader(fd)
            out.close()

    def _term(self, tid: str) -> Terminal:
        term = self.terminals.get(tid)
        if term is None:
            raise RequestError.invalid_params({"terminalId": tid, "reason": "no such terminal"})
        return term

    async def terminal_output(self, tid: str) -> TerminalOutputResponse:
        term = self._term(tid)
        if term.exited.done() and term.reader is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(term.reader), 1.0)
        return TerminalOutputResponse(output=term.output.decode("utf-8", "replace"), truncated=term.truncated,
                                      exit_status=term.status())

    async def wait_for_exit(self, tid: str) -> WaitForTerminalExitResponse:
        term = self._term(tid)
        code = await asyncio.shield(term.exited)
        if term.reader is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(term.reader), 1.0)
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None,
                                           signal=None if code >= 0 else str(-code))

    async def kill(self, tid: str) -> KillTerminalResponse:
        term = self._term(tid)
        if not term.exited.done():
            await term.child.stop_async(TERM_GRACE, term.exited)
        return KillTerminalResponse()

    async def release(self, tid: str) -> ReleaseTerminalResponse:
        term = self._term(tid)
        if not term.exited.done():
            await term.child.stop_async(TERM_GRACE, term.exited)
        self.terminals.pop(tid, None)
        return ReleaseTerminalResponse()

    async def close(self) -> None:
        """Stop every terminal still running (their whole process groups)."""
        for term in self.terminals.values():
            if not term.exited.done():
                await term.child.stop_async(TERM_GRACE, term.exited)
            if term.reader is not None:
                term.reader.cancel()
        self.terminals.clear()


def client_for(host: Host, on_update: Any = None) -> Any:
    """An ``acp.Client`` (the library's interface) that answers with ``host``."""

    class RunnerClient:
        async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                     options: list[PermissionOption], **kwargs: Any) -> RequestPermissionResponse:
            return host.permission(tool_call, options)

        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            return None  # recorded from the wire (acp.jsonl); the checks read the log

        async def write_text_file(self, session_id: str, path: str, content: str,
                                  **kwargs: Any) -> WriteTextFileResponse:
            return host.write(path, content)

        async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                                 limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
            return host.read(path, line, limit)

        async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                                  env: list[EnvVariable] | None = None, cwd: str | None = None,
                                  output_byte_limit: int | None = None, **kwargs: Any) -> CreateTerminalResponse:
            return await host.create_terminal(command, args, env, cwd, output_byte_limit)

        async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
            return await host.terminal_output(terminal_id)

        async def release_terminal(self, session_id: str, terminal_id: str,
                                   **kwargs: Any) -> ReleaseTerminalResponse:
            return await host.release(terminal_id)

        async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                         **kwargs: Any) -> WaitForTerminalExitResponse:
            return await host.wait_for_exit(terminal_id)

        async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
            return await host.kill(terminal_id)

        async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            raise RequestError.method_not_found(method)

        async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
            return None

        def on_connect(self, conn: Any) -> None:
            return None

    return RunnerClient()


__all__ = ["Host", "client_for", "pick", "policy_of"]
