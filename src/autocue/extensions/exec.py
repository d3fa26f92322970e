"""``exec``: run a program for an extension and collect its output.

``await run_exec("git", ["status"], cwd=..., timeout=5)`` → ``ExecResult(stdout, stderr, code, killed)``.
The program runs in its own process group (``autocue.process.capture``). When ``timeout``
seconds pass or ``signal`` fires, the whole group gets SIGTERM, then SIGKILL after
``KILL_GRACE`` seconds, and ``killed`` is true. Once the program has exited, output still held
open by a background child is read for at most ``DRAIN_TIMEOUT`` seconds.
A program that cannot be started gives ``code`` 127 and the reason in ``stderr``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autocue.llm.abort import AbortSignal
from autocue.process import capture

KILL_GRACE = 1.0
DRAIN_TIMEOUT = 0.5


@dataclass(slots=True)
class ExecResult:
    stdout: str
    stderr: str
    code: int
    killed: bool = False


async def run_exec(
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: str | None = None,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
) -> ExecResult:
    try:
        result = await capture(
            [command, *args], cwd=cwd, timeout=timeout, signal=signal, kill_grace=KILL_GRACE,
            drain_timeout=DRAIN_TIMEOUT,
        )
    except OSError as e:
        return ExecResult("", f"cannot run {command!r} in {cwd or '.'}: {e}", 127)
    return ExecResult(result.stdout, result.stderr, result.code, result.stopped is not None)


__all__ = ["ExecResult", "run_exec"]
