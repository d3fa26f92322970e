"""``exec``: run a program for an extension and collect its output.

``await run_exec("git", ["status"], cwd=..., timeout=5)`` → ``ExecResult(stdout, stderr, code, killed)``.
The process is killed when ``timeout`` seconds pass or ``signal`` fires (``killed`` is then true).
A program that cannot be started gives ``code`` 127 and the reason in ``stderr``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from autocue.llm.abort import AbortSignal


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
        proc = await asyncio.create_subprocess_exec(
            command, *args, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            stdin=asyncio.subprocess.DEVNULL,
        )
    except OSError as e:
        return ExecResult("", f"cannot run {command!r} in {cwd or '.'}: {e}", 127)
    killed = False
    comm = asyncio.ensure_future(proc.communicate())
    waiters: set[asyncio.Future[object]] = {comm}  # type: ignore[arg-type]
    abort_wait: asyncio.Future[None] | None = None
    if signal is not None:
        abort_wait = asyncio.ensure_future(signal.wait())
        waiters.add(abort_wait)  # type: ignore[arg-type]
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if comm not in done:
            killed = True
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        out, err = await comm
    finally:
        if abort_wait is not None and not abort_wait.done():
            abort_wait.cancel()
    code = proc.returncode if proc.returncode is not None else -1
    return ExecResult(out.decode(errors="replace"), err.decode(errors="replace"), code, killed)


__all__ = ["ExecResult", "run_exec"]
