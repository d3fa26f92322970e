"""``expectRequest``: what the agent must have sent before the next reply (the model side).

A timeline item ``- expectRequest: {...}`` before an ``llmResponse`` states what the request
that would receive that reply must carry. Keys (all optional, all must hold):

- ``model``: the request's model, exactly;
- ``tools``: tool names the request must declare (a string or a list; others may be declared too);
- ``systemContains``: text the system prompt contains (a string or a list);
- ``lastMessage``: ``{role, contains, toolResultContains}`` about the request's last message
  (role ``user``, ``assistant``, ``tool`` or ``system``, read the same way for all four APIs);
- ``pointer``: ``{"/json/pointer": value, ...}``: RFC 6901 pointers into the request body
  as the agent sent it, each equal to its value.

Text comparisons ignore differences in whitespace. The mock server evaluates it
(``autocue.mockllm.expect``); a mismatch answers 422 with the differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autocue.scenario.errors import Pos
from autocue.scenario.pointer import MISSING, resolve_pointer

EXPECT_KEYS: tuple[str, ...] = ("model", "tools", "systemContains", "lastMessage", "pointer")
LAST_MESSAGE_KEYS: tuple[str, ...] = ("role", "contains", "toolResultContains")
ROLES: tuple[str, ...] = ("user", "assistant", "tool", "system")

__all__ = ["EXPECT_KEYS", "LAST_MESSAGE_KEYS", "MISSING", "ROLES", "RequestExpectation", "resolve_pointer"]


@dataclass(slots=True)
class RequestExpectation:
    model: str | None = None
    tools: list[str] = field(default_factory=list)
    system_contains: list[str] = field(default_factory=list)
    last_role: str | None = None
    last_contains: list[str] = field(default_factory=list)
    tool_result_contains: list[str] = field(default_factory=list)
    pointers: list[tuple[str, Any]] = field(default_factory=list)
    pos: Pos | None = None

    @property
    def count(self) -> int:
        return (int(self.model is not None) + len(self.tools) + len(self.system_contains)
                + int(self.last_role is not None) + len(self.last_contains) + len(self.tool_result_contains)
                + len(self.pointers))

    def describe(self) -> str:
        parts: list[str] = []
        if self.model is not None:
            parts.append(f"model == {self.model!r}")
        if self.tools:
            parts.append("tools ⊇ [" + ", ".join(self.tools) + "]")
        parts += [f"system contains {s[:40]!r}" for s in self.system_contains]
        if self.last_role is not None:
            parts.append(f"last role == {self.last_role!r}")
        parts += [f"last contains {s[:40]!r}" for s in self.last_contains]
        parts += [f"tool result contains {s[:40]!r}" for s in self.tool_result_contains]
        parts += [f"{p} == {v!r}"[:80] for p, v in self.pointers]
        return "expectRequest " + ", ".join(parts)
