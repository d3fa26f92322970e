"""Run any program as the agent: the prompt on stdin or as the last argument.

Public surface: ``CommandBackend(command, args=(), prompt_mode="stdin", env=None, kill_grace_secs=2.0)``.

The program runs in the workspace, in its own session (process group), with the
environment plus ``AUTOCUE_HAT``, ``AUTOCUE_ITERATION``, ``AUTOCUE_EVENTS_FILE`` and
``AUTOCUE_SCRATCHPAD``. Output is streamed chunk by chunk to the loop. When the run is
cancelled (loop timeout or interrupt), even while the program is still being started, the
whole process group gets SIGTERM, then SIGKILL after ``kill_grace_secs``; when the program
exits, whatever it left running in its group is killed too: no orphaned grandchildren keep
running. Spawning, stopping and draining are ``autocue.process.run_process``; the group is
registered for ``kill_running`` the moment the program exists, before anything is awaited.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Sequence
from typing import Any

from autocue.loop.backend import BackendResult, Invocation
from autocue.process import kill_group, run_process


def kill_process_group(pid: int, sig: int) -> None:
    """Signal the process group led by ``pid`` (kept for callers; ``autocue.process.kill_group``)."""
    kill_group(pid, sig)


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
        out: list[bytes] = []
        err: list[bytes] = []

        def on_stdout(chunk: bytes) -> None:
            out.append(chunk)
            invocation.on_output(chunk, True)

        def on_stderr(chunk: bytes) -> None:
            err.append(chunk)
            invocation.on_output(chunk, False)

        pids: list[int] = []

        def started(pid: int) -> None:  # before any await: an interrupt can always reach the group
            pids.append(pid)
            self._running.add(pid)

        try:
            result = await run_process(
                argv, cwd=str(invocation.cwd), env=env,
                input=invocation.prompt.encode("utf-8") if self.prompt_mode == "stdin" else None,
                on_stdout=on_stdout, on_stderr=on_stderr, on_start=started,
                kill_grace=self.kill_grace_secs, drain_timeout=self.kill_grace_secs, end_group=True,
            )
        except OSError as e:
            msg = f"backend command {self.command!r} could not be started (hat '{invocation.hat}'): {e}"
            return BackendResult(stderr=msg, exit_code=126, error=msg, fatal=True)
        finally:
            self._running.difference_update(pids)
        if result.code != 0:
            self.failures += 1
        return BackendResult(
            output=b"".join(out).decode("utf-8", "replace"),
            stderr=b"".join(err).decode("utf-8", "replace"),
            exit_code=result.code,
        )

    def stats(self) -> dict[str, Any]:
        return {"command": self.command, "runs": self.runs, "failures": self.failures}


__all__ = ["CommandBackend", "kill_process_group"]
