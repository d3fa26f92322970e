"""The backend seam: what runs one hat activation.

Public surface: ``Invocation`` (what a backend gets), ``BackendResult`` (what it returns),
``Backend`` (the protocol: ``async run(invocation) -> BackendResult`` and ``stats()``),
``OutputSink``.

A backend reports its output twice: live, chunk by chunk, through ``invocation.on_output``
(the loop records each chunk as ``ux.terminal.write``, so a run cut short by a timeout keeps
its partial output), and whole, in ``BackendResult.output`` for event parsing. A backend
must not raise for ordinary failures (non-zero exit): it returns ``exit_code``; ``fatal``
marks a failure the loop must not retry (an exhausted mock, a missing program). It must
clean up when cancelled (the loop cancels on timeout and on interrupt).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

OutputSink = Callable[[bytes, bool], None]
"""``(chunk, is_stdout)``."""


def _ignore(_data: bytes, _stdout: bool) -> None:
    return None


@dataclass(slots=True)
class Invocation:
    prompt: str
    hat: str
    iteration: int
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    on_output: OutputSink = _ignore


@dataclass(slots=True)
class BackendResult:
    output: str = ""
    stderr: str = ""
    exit_code: int = 0
    error: str | None = None
    """Why the run failed, for the user."""
    fatal: bool = False
    """The loop must stop (ValidationFailure) rather than count a failure and retry."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.error is None


class Backend(Protocol):
    name: str

    async def run(self, invocation: Invocation) -> BackendResult: ...

    def stats(self) -> dict[str, Any]: ...


__all__ = ["Backend", "BackendResult", "Invocation", "OutputSink"]
