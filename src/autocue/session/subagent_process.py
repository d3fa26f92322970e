"""``ProcessChild``: a subagent as a child ``autocue --mode rpc`` process.

The child starts in its own process group with the type's tools (plus ``submit_result``,
loaded with ``-e autocue.session.submit_result``), the type's system prompt, the parent's
model and ``--no-discover`` (it sees none of the project's extensions). Its session file is
linked to the parent's with RPC ``new_session{parentSession}``; each ``run`` sends a ``prompt``
and reads events until an ``agent_end`` after which ``get_state`` says it is idle. An abort
sends RPC ``abort``; ``close`` closes stdin, waits briefly, then TERMs and KILLs the group.
The child runs through the process runner (``autocue.process.run_process``): commands go to
its stdin as they are sent (an async iterable input), event lines come from its stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import orjson

from autocue.llm.abort import AbortController
from autocue.llm.types import Model
from autocue.process import ProcessResult, run_process
from autocue.session.session_dir import uuid7
from autocue.session.submit_result import SUBMIT_RESULT

_CLOSE_GRACE = 5.0
_KILL_GRACE = 2.0


class ProcessChild:
    def __init__(self, task_id: str, on_progress: Callable[[str], None]) -> None:
        self.task_id = task_id
        self.submitted: list[Any] = []
        self.events: list[dict[str, Any]] = []
        """Every event line the child sent (``t.events.subagent(...)`` of a harness reads them)."""
        self._on_progress = on_progress
        self.session_file: str | None = None
        self._last_text: str | None = None
        self._error: str | None = None
        self._next_id = 0
        self._submit_args: Any = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._agent_end = asyncio.Event()
        self._stderr = bytearray()
        self._stdout = bytearray()
        """What the child wrote after its last whole line."""
        self._commands: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._input_closed = False
        self._stop = AbortController()
        self._run: asyncio.Future[ProcessResult] | None = None
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
        child = cls(task_id, on_progress)
        await child._spawn(argv, cwd)
        try:
            if parent_file is not None:
                await child.command({"type": "new_session", "parentSession": parent_file})
            state = await child.command({"type": "get_state"})
        except Exception:
            await child.close()
            raise
        child.session_file = state.get("sessionFile")
        return child

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

    async def _spawn(self, argv: list[str], cwd: str) -> None:
        """Start the child through the process runner; return once it exists (``OSError``: it cannot start)."""
        started: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._run = run = asyncio.ensure_future(run_process(
            argv, cwd=cwd, input=self._input(), on_stdout=self._on_stdout, on_stderr=self._on_stderr,
            on_start=started.set_result, signal=self._stop.signal, kill_grace=_KILL_GRACE,
        ))
        run.add_done_callback(self._ended)
        either: list[asyncio.Future[Any]] = [run, started]
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not started.done():
            run.result()  # what stopped the start

    async def _input(self) -> AsyncIterator[bytes]:
        while (line := await self._commands.get()) is not None:
            yield line

    def _write(self, obj: dict[str, Any]) -> None:
        if self._run is None or self._run.done() or self._input_closed:
            raise OSError(f"subagent {self.task_id}: the child process has exited{self._stderr_tail()}")
        self._commands.put_nowait(orjson.dumps(obj) + b"\n")

    def _on_stdout(self, chunk: bytes) -> None:
        self._stdout.extend(chunk)
        *lines, rest = self._stdout.split(b"\n")
        self._stdout[:] = rest
        for line in lines:
            try:
                msg = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(msg, dict):
                self._on_line(msg)

    def _on_stderr(self, chunk: bytes) -> None:
        self._stderr += chunk[: max(0, 65536 - len(self._stderr))]

    def _ended(self, run: asyncio.Future[ProcessResult]) -> None:
        """The child exited (its output read): what waits for it learns so."""
        if not run.cancelled():
            run.exception()  # retrieved: a start failure is raised by _spawn, the rest is the exit below
        err = OSError(f"subagent {self.task_id}: the child process exited{self._stderr_tail()}")
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()
        self._agent_end.set()

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
            if self._run is None or self._run.done():
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
        """Close the child's stdin and give it ``_CLOSE_GRACE`` seconds to end; then stop its group
        (SIGTERM, SIGKILL after ``_KILL_GRACE`` seconds)."""
        run = self._run
        if not self._input_closed:
            self._input_closed = True
            self._commands.put_nowait(None)
        if run is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(run), _CLOSE_GRACE)
        except TimeoutError:
            self._stop.abort()
        except Exception:
            return  # its failure was told to what waited for it
        with contextlib.suppress(Exception):
            await run


__all__ = ["ProcessChild"]
