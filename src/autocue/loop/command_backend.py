"""Run any program as the agent: the prompt on stdin or as the last argument.

Public surface: ``CommandBackend(command, args=(), prompt_mode="stdin", env=None, kill_grace_secs=2.0)``.

The program runs in the workspace, in its own session (process group), with the
environment plus ``AUTOCUE_HAT``, ``AUTOCUE_ITERATION``, ``AUTOCUE_EVENTS_FILE`` and
``AUTOCUE_SCRATCHPAD``. Output is streamed chunk by chunk to the loop. When the run is
cancelled (loop timeout or interrupt), even while the program is still being started, the
whole process group gets SIGTERM, then SIGKILL after ``kill_grace_secs``; when the program
exits, whatever it left running in its group is killed too: no orphaned grandchildren keep
running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Sequence
from typing import Any

from autocue.loop.backend import BackendResult, Invocation

_CHUNK = 65536


def kill_process_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class CommandBackend:
    """See module docstring."""

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        prompt_mode: str = "stdin",
        env: dict[str, str] | None = None,
        kill_grace_secs: float = 2.0,
        name: str | None = None,
    ) -> None:
        if prompt_mode not in ("stdin", "arg"):
            raise ValueError(f"prompt_mode must be 'stdin' or 'arg', got {prompt_mode!r}")
        self.command = command
        self.args = [str(a) for a in args]
        self.prompt_mode = prompt_mode
        self.env = dict(env or {})
        self.kill_grace_secs = kill_grace_secs
        self.name = name or f"command:{command}"
        self.runs = 0
        self.failures = 0
        self._running: set[int] = set()
        """Process-group ids of commands running now (killed at once by ``kill_running``)."""

    def kill_running(self) -> None:
        """Kill every running command's whole process group now (the loop calls this on interrupt)."""
        for pgid in list(self._running):
            kill_process_group(pgid, signal.SIGKILL)

    @classmethod
    def from_options(cls, opts: dict[str, Any]) -> CommandBackend:
        env = opts.get("env") or {}
        return cls(
            str(opts["command"]),
            [str(a) for a in (opts.get("args") or [])],
            prompt_mode=str(opts.get("prompt_mode", "stdin")),
            env={str(k): str(v) for k, v in env.items()},
            kill_grace_secs=float(opts.get("kill_grace_secs", 2.0)),
        )

    async def run(self, invocation: Invocation) -> BackendResult:
        self.runs += 1
        env = {**os.environ, **self.env, **invocation.env}
        argv = [self.command, *self.args]
        if self.prompt_mode == "arg":
            argv.append(invocation.prompt)
        if shutil.which(self.command, path=env.get("PATH")) is None and not os.path.isfile(
            os.path.join(invocation.cwd, self.command)
        ):
            msg = (
                f"backend command {self.command!r} was not found on PATH (hat '{invocation.hat}'). "
                "Install it, give its full path in the backend config, or use the mock backend."
            )
            return BackendResult(stderr=msg, exit_code=127, error=msg, fatal=True)
        spawn = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if self.prompt_mode == "stdin" else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=str(invocation.cwd),
                env=env,
                start_new_session=True,
            )
        )
        # The fork happens in the spawn's first step, the pipes connect in later ones: a cancel in
        # between must neither lose the pid nor leave the group running. So the spawn is shielded
        # (it always finishes and hands over the process), its done callback registers the group
        # (for kill_running) before this task resumes, and a cancel that lands while it runs waits
        # for it and ends the group (_end_cancelled_spawn).
        spawn.add_done_callback(self._register_spawned)
        try:
            proc = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            await self._end_cancelled_spawn(spawn)
            raise
        except OSError as e:
            msg = f"backend command {self.command!r} could not be started (hat '{invocation.hat}'): {e}"
            return BackendResult(stderr=msg, exit_code=126, error=msg, fatal=True)
        try:
            return await self._supervise(proc, invocation)
        finally:
            self._running.discard(proc.pid)

    def _register_spawned(self, spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
        if not spawn.cancelled() and spawn.exception() is None:
            self._running.add(spawn.result().pid)

    def _kill_spawned(self, spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
        if not spawn.cancelled() and spawn.exception() is None:
            pid = spawn.result().pid
            kill_process_group(pid, signal.SIGKILL)
            self._running.discard(pid)

    async def _end_cancelled_spawn(self, spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
        """The run was cancelled while its process was being spawned: let the spawn finish, end the group."""
        try:
            proc = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            # cancelled again while waiting: the spawn still finishes; end the group from its callback
            spawn.add_done_callback(self._kill_spawned)
            raise
        except OSError:
            return
        try:
            await self._terminate(proc)
        finally:
            self._running.discard(proc.pid)

    async def _supervise(self, proc: asyncio.subprocess.Process, invocation: Invocation) -> BackendResult:
        out: list[bytes] = []
        err: list[bytes] = []

        async def pump(stream: asyncio.StreamReader | None, buf: list[bytes], is_stdout: bool) -> None:
            if stream is None:
                return
            while True:
                chunk = await stream.read(_CHUNK)
                if not chunk:
                    return
                buf.append(chunk)
                invocation.on_output(chunk, is_stdout)

        async def feed() -> None:
            if proc.stdin is None:
                return
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                proc.stdin.write(invocation.prompt.encode("utf-8"))
                await proc.stdin.drain()
            proc.stdin.close()

        pumps = asyncio.ensure_future(
            asyncio.gather(feed(), pump(proc.stdout, out, True), pump(proc.stderr, err, False))
        )
        try:
            # asyncio's wait() also waits for the pipes, which children left running may hold open:
            # watch the exit status itself, then give the pipes a moment before ending the group
            while not pumps.done() and proc.returncode is None:
                await asyncio.wait({pumps}, timeout=0.05)
            if not pumps.done():
                try:
                    await asyncio.wait_for(asyncio.shield(pumps), self.kill_grace_secs)
                except TimeoutError:
                    kill_process_group(proc.pid, signal.SIGKILL)
            await pumps
            code = await proc.wait()
            kill_process_group(proc.pid, signal.SIGKILL)
        except BaseException:
            await self._terminate(proc)
            pumps.cancel()
            with contextlib.suppress(BaseException):
                await pumps
            raise
        stdout = b"".join(out).decode("utf-8", "replace")
        stderr = b"".join(err).decode("utf-8", "replace")
        if code != 0:
            self.failures += 1
        return BackendResult(output=stdout, stderr=stderr, exit_code=code)

    async def _terminate(self, proc: asyncio.subprocess.Process) -> None:
        kill_process_group(proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), self.kill_grace_secs)
        except (TimeoutError, asyncio.CancelledError):
            pass
        kill_process_group(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(proc.wait()), 5)

    def stats(self) -> dict[str, Any]:
        return {"command": self.command, "runs": self.runs, "failures": self.failures}


__all__ = ["CommandBackend", "kill_process_group"]
