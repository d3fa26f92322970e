"""``LoopResult``: what one run of the orchestrator loop ends with (``EventLoop.run``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autocue.loop.termination import TerminationReason


@dataclass(slots=True)
class LoopResult:
    reason: TerminationReason
    iterations: int
    elapsed_secs: float
    events_count: int
    session_file: str | None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    hats_run: list[str] = field(default_factory=list)
    backend_stats: dict[str, Any] = field(default_factory=dict)
    records_count: int = 0

    @property
    def exit_code(self) -> int:
        return self.reason.exit_code

    @property
    def termination_reason(self) -> str:
        return self.reason.value

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "exit_code": self.exit_code,
            "termination_reason": self.reason.value,
            "iterations": self.iterations,
            "elapsed_secs": round(self.elapsed_secs, 3),
            "session_file": self.session_file,
            "events_count": self.events_count,
            "stdout": self.stdout,
            "stderr": self.stderr,
        }
        d.update(self.backend_stats)
        if self.error:
            d["error"] = self.error
        if self.warnings:
            d["warnings"] = list(self.warnings)
        return d


__all__ = ["LoopResult"]
