"""``ProcessChild``: a subagent as a child ``autocue --mode rpc`` process.

The child starts in its own process group with the type's tools (plus ``submit_result``,
loaded with ``-e autocue.session.submit_result``), the type's system prompt, the parent's
model and ``--no-discover`` (it sees none of the project's extensions). Its session file is
linked to the parent's with RPC ``new_session{parentSession}``; each ``run`` sends a ``prompt``
and reads events until an ``agent_end`` after which ``get_state`` says it is idle. An abort
sends RPC ``abort``; ``close`` closes stdin, waits briefly, then TERMs and KILLs the group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from autocue.llm.types import Model
from autocue.process import kill_group
from autocue.session.session_dir import uuid7
from autocue.session.submit_result import SUBMIT_RESULT

_CLOSE_GRACE = 5.0
_LIMIT = 64 * 1024 * 1024


class ProcessChild:
    def __init__(self, task_id: str, proc: asyncio.subprocess.Process, on_progress: Callable[[str], None]) -> None:
        self.task_id = task_id
        self.proc = proc
        self.submitted: list[Any] = []
        self.events: list[dict[str, Any]] = []
        """Every event line the child sent (``t.events.subagent(...)`` of a harness reads them)."""
        self._on_progress = on_progress
        self._session_file: str | None = None
        self._last_text: str | None = None
        self._error: str | None = None
        self._next_id = 0
        self._submit_args: Any = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._agent_end = asyncio.Event()
        self._stderr = bytearray()
        self._reader = asyncio.ensure_future(self._read())
        self._err_reader = asyncio.ensure_future(self._read_stderr())
        self.listeners: list[Callable[[dict[str, Any]], None]] = []

    @classmethod
    async def start(
        cls,
        task_id: str,
        command: Sequence[str],
        *,
        cwd: str,
        model: Model,
        tools: Sequence[str],
        system_prompt: str,
        parent_file: str | None,
        session_dir: str | None,
        extra_args: Sequence[str] = (),
        on_progress: Callable[[str], None],
    ) -> ProcessChild:
        argv = [
            *command, "--mode", "rpc", "--no-discover", "--cwd", cwd, "--model", f"{model.provider}/{model.id}",
            "--system-prompt", system_prompt, "--tools", ",".join([*tools, SUBMIT_RESULT]),
            "-e", "autocue.session.submit_result",
        ]
        if session_dir is not None:
            argv += ["--session", os.path.join(session_dir, f"subagent-{uuid7()}.jsonl")]
        else:
            argv.append("--no-session")
        argv += list(extra_args)
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=cwd, start_new_session=True, limit=_LIMIT,
        )
        child = cls(task_id, proc, on_progress)
        try:
            if parent_file is not None:
                await child.command({"type": "new_session", "parentSession": parent_file})
            state = await child.command({"type": "get_state"})
        except Exception:
            await child.close()
            raise
        child._session_file = state.get("sessionFile")
        return child

    @property
    def session_file(self) -> str | None:
        return self._session_file

    # ------------------------------------------------------------------ protocol
    async def command(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Send one RPC command and return its ``data``; raises ``OSError`` on a failure or exit."""
        self._next_id += 1
        rid = f"p{self._next_id}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self._write({**cmd, "id": rid})
        resp = await fut
        if not resp.get("success"):
            raise OSError(f"subagent {self.task_id}: {cmd['type']} failed: {resp.get('error')}")
        data = resp.get("data")
        return data if isinstance(data, dict) else {}

    def _write(self, obj: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            raise OSError(f"subagent {self.task_id}: the child process has exited{self._stderr_tail()}")
        stdin.write(orjson.dumps(obj) + b"\n")

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while line := await out.readline():
                try:
                    msg = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(msg, dict):
                    self._on_line(msg)
        finally:
            err = OSError(f"subagent {self.task_id}: the child process exited{self._stderr_tail()}")
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(err)
            self._pending.clear()
            self._agent_end.set()

    async def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        while chunk := await err.read(65536):
            self._stderr += chunk[: max(0, 65536 - len(self._stderr))]

    def _stderr_tail(self) -> str:
        text = self._stderr.decode("utf-8", "replace").strip()
        return f": {text.splitlines()[-1]}" if text else ""

    def _on_line(self, msg: dict[str, Any]) -> None:
        t = msg.get("type")
        if t == "response":
            fut = self._pending.pop(str(msg.get("id")), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
            elif msg.get("command") == "prompt" and not msg.get("success"):
                self._error = str(msg.get("error"))
                self._agent_end.set()
            return
        self.events.append(msg)
        for fn in self.listeners:
            fn(msg)
        if t == "tool_execution_start":
            self._on_progress(str(msg.get("toolName")))
            if msg.get("toolName") == SUBMIT_RESULT:
                args = msg.get("args")
                self._submit_args = args.get("result") if isinstance(args, dict) else None
        elif t == "tool_execution_end" and msg.get("toolName") == SUBMIT_RESULT and not msg.get("isError"):
            self.submitted.append(self._submit_args)
        elif t == "message_end":
            m = msg.get("message") or {}
            if m.get("role") == "assistant":
                if m.get("stopReason") == "error":
                    self._error = m.get("errorMessage") or "the model call failed"
                else:
                    self._error = None
                    blocks = m.get("content") or []
                    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
                    text = "\n".join(texts)
                    if text or m.get("stopReason") != "aborted":
                        self._last_text = text
        elif t == "agent_end":
            self._agent_end.set()

    # ------------------------------------------------------------------ Child
    async def run(self, prompt: str) -> None:
        self._agent_end.clear()
        await self.command({"type": "prompt", "message": prompt})
        while True:
            await self._agent_end.wait()
            self._agent_end.clear()
            if self.proc.returncode is not None or self._reader.done():
                if self._error is None:
                    self._error = f"the child process exited{self._stderr_tail()}"
                return
            try:
                state = await self.command({"type": "get_state"})
            except OSError as e:
                self._error = str(e)
                return
            if not state.get("isStreaming"):
                return

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._write({"type": "abort"})

    def last_text(self) -> str | None:
        return self._last_text

    def error(self) -> str | None:
        return self._error

    async def close(self) -> None:
        stdin = self.proc.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), _CLOSE_GRACE)
        except TimeoutError:
            kill_group(self.proc.pid, signals.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 2.0)
            except TimeoutError:
                kill_group(self.proc.pid)
                await self.proc.wait()
        await asyncio.gather(self._reader, self._err_reader, return_exceptions=True)


__all__ = ["ProcessChild"]
