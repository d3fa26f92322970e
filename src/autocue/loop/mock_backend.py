"""The scripted mock backend: ordered agent outputs, hat- and prompt-aware, loud on exhaustion.

Public surface: ``MockResponse`` (``from_dict``/``to_dict``), ``MockBackend``,
``MockConfigError``, ``parse_mock_responses(items)``.

A response is ``{output, hat?, trigger_pattern?, exit_code=0, delay_ms=0}`` (plus autocue's
``files: {path: content}``, written into the workspace before the output is returned, to
stand in for an agent's edits). Each activation takes the *first remaining* response whose
``hat`` equals the active hat (when set) and whose ``trigger_pattern`` (a regex) is found in
the prompt (when set). When none is left, or none matches, the run fails with a fatal error
that gives the consumed count and what is left. ``stats()`` reports
``mock_responses_consumed``, ``mock_responses_remaining`` and the unconsumed responses.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from autocue.loop.backend import BackendResult, Invocation
from autocue.loop.errors import MockConfigError as MockConfigError
from autocue.loop.paths import PathEscapeError, confine
from autocue.loop.safe_files import UnsafeFileError, write_atomic

_KEYS = {"output", "hat", "trigger_pattern", "exit_code", "delay_ms", "files"}


@dataclass(slots=True)
class MockResponse:
    output: str
    hat: str | None = None
    trigger_pattern: str | None = None
    exit_code: int = 0
    delay_ms: int = 0
    files: dict[str, str] = field(default_factory=dict)
    index: int = 0
    _regex: re.Pattern[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.trigger_pattern is not None and self._regex is None:
            try:
                self._regex = re.compile(self.trigger_pattern)
            except re.error as e:
                raise MockConfigError(
                    f"mock response {self.index}: trigger_pattern {self.trigger_pattern!r} is not a valid regex ({e})"
                ) from e

    @classmethod
    def from_dict(cls, d: Any, index: int = 0) -> MockResponse:
        if isinstance(d, str):
            return cls(output=d, index=index)
        if not isinstance(d, dict):
            raise MockConfigError(f"mock response {index}: expected an object with 'output', got {type(d).__name__}")
        unknown = sorted(set(d) - _KEYS)
        if unknown:
            raise MockConfigError(
                f"mock response {index}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}"
            )
        out = d.get("output")
        if not isinstance(out, str):
            raise MockConfigError(f"mock response {index}: 'output' (a string) is required")
        for k in ("exit_code", "delay_ms"):
            v = d.get(k, 0)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise MockConfigError(f"mock response {index}: '{k}' must be an integer, got {v!r}")
        if (d.get("delay_ms") or 0) < 0:
            raise MockConfigError(f"mock response {index}: 'delay_ms' must not be negative")
        for k in ("hat", "trigger_pattern"):
            if d.get(k) is not None and not isinstance(d[k], str):
                raise MockConfigError(f"mock response {index}: '{k}' must be a string")
        files = d.get("files") or {}
        if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise MockConfigError(f"mock response {index}: 'files' must map paths to string contents")
        return cls(
            output=out, hat=d.get("hat"), trigger_pattern=d.get("trigger_pattern"),
            exit_code=d.get("exit_code") or 0, delay_ms=d.get("delay_ms") or 0, files=dict(files), index=index,
        )

    def to_dict(self) -> dict[str, Any]:
        """The response as ``from_dict`` takes it, without the fields left at their defaults."""
        optional = {"hat": self.hat, "trigger_pattern": self.trigger_pattern, "exit_code": self.exit_code,
                    "delay_ms": self.delay_ms, "files": dict(self.files)}
        return {"output": self.output, **{k: v for k, v in optional.items() if v not in (None, 0, {})}}

    def matches(self, hat: str, prompt: str) -> bool:
        if self.hat is not None and self.hat != hat:
            return False
        return self._regex is None or self._regex.search(prompt) is not None

    def describe(self) -> str:
        where = []
        if self.hat is not None:
            where.append(f"hat={self.hat}")
        if self.trigger_pattern is not None:
            where.append(f"trigger_pattern={self.trigger_pattern!r}")
        preview = self.output[:40].replace("\n", "\\n")
        return f"#{self.index} ({', '.join(where) or 'any hat'}): {preview!r}"


def parse_mock_responses(items: Any) -> list[MockResponse]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise MockConfigError(f"mock responses must be a list, got {type(items).__name__}")
    return [MockResponse.from_dict(d, i) for i, d in enumerate(items)]


class MockBackend:
    """Plays ``MockResponse`` s in order (see module docstring)."""

    name = "mock"

    def __init__(self, responses: list[MockResponse] | list[dict[str, Any]] | None = None) -> None:
        items = list(responses or [])
        self.remaining: list[MockResponse] = [
            r if isinstance(r, MockResponse) else MockResponse.from_dict(r, i) for i, r in enumerate(items)
        ]
        self.consumed: list[MockResponse] = []
        self.prompts: list[tuple[str, str]] = []
        """``(hat, prompt)`` of every activation, for diagnostics."""

    def _pick(self, hat: str, prompt: str) -> MockResponse | None:
        for i, r in enumerate(self.remaining):
            if r.matches(hat, prompt):
                return self.remaining.pop(i)
        return None

    def _exhausted(self, inv: Invocation) -> str:
        n = len(self.consumed)
        if not self.remaining:
            return (
                f"Mock responses exhausted: hat '{inv.hat}' (iteration {inv.iteration}) needs a response, but all "
                f"{n} response(s) were consumed. Add a response for this activation to the mock responses."
            )
        left = "; ".join(r.describe() for r in self.remaining[:5])
        return (
            f"Mock responses exhausted for hat '{inv.hat}' (iteration {inv.iteration}): consumed {n} response(s), "
            f"and none of the {len(self.remaining)} remaining matches this hat and prompt: {left}. "
            "Check the 'hat' and 'trigger_pattern' of the remaining responses."
        )

    async def run(self, invocation: Invocation) -> BackendResult:
        self.prompts.append((invocation.hat, invocation.prompt))
        r = self._pick(invocation.hat, invocation.prompt)
        if r is None:
            msg = self._exhausted(invocation)
            return BackendResult(stderr=msg, exit_code=1, error=msg, fatal=True)
        self.consumed.append(r)
        if r.delay_ms:
            await asyncio.sleep(r.delay_ms / 1000)
        for path, content in r.files.items():
            try:
                target = confine(invocation.cwd, path)
            except PathEscapeError as e:
                msg = f"mock response {r.index}: {e}"
                return BackendResult(stderr=msg, exit_code=1, error=msg, fatal=True)
            rel = target.relative_to(invocation.cwd.resolve()).as_posix()
            try:  # a new file renamed over the name: never written through a (hard) link
                write_atomic(invocation.cwd, rel, content.encode("utf-8"), 0o644)
            except (UnsafeFileError, IsADirectoryError) as e:
                msg = f"mock response {r.index}: cannot write {path!r}: {e}"
                return BackendResult(stderr=msg, exit_code=1, error=msg, fatal=True)
        if r.output:
            text = r.output if r.output.endswith("\n") else r.output + "\n"
            invocation.on_output(text.encode("utf-8"), True)
        return BackendResult(output=r.output, exit_code=r.exit_code)

    def stats(self) -> dict[str, Any]:
        return {
            "mock_responses_consumed": len(self.consumed),
            "mock_responses_remaining": len(self.remaining),
            "mock_responses_unconsumed": [r.to_dict() | {"index": r.index} for r in self.remaining],
        }


__all__ = ["MockBackend", "MockConfigError", "MockResponse", "parse_mock_responses"]
