"""What a sandbox install check can find wrong: ``ProblemKind``, ``Problem`` and ``SandboxStepError``.

Every problem is named (``kind``), says what happened and where (``message``), why it
happens (``explanation``) and what to do (``fix``); ``details`` keeps the raw evidence
(build or installer output, a traceback).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from autocue.sandbox.errors import SandboxStepError as SandboxStepError


class ProblemKind(StrEnum):
    """The failure classes ``verify_sandbox_install`` tells apart."""

    NOT_A_PACKAGE = "not_a_package"
    """The directory has no ``pyproject.toml`` (or ``setup.py``)."""
    BUILD_FAILED = "build_failed"
    """The wheel could not be built."""
    VENV_FAILED = "venv_failed"
    """The fresh virtual environment could not be created."""
    MISSING_DEPENDENCY = "missing_dependency"
    """A declared dependency cannot be installed (not installed here, not cached, offline)."""
    INSTALL_FAILED = "install_failed"
    """The installer failed for another reason."""
    NO_ENTRY_POINTS = "no_entry_points"
    """The installed package declares no ``autocue.extensions`` entry point."""
    MODULE_MISSING_FROM_WHEEL = "module_missing_from_wheel"
    """A module of the package is in the source tree but was left out of the wheel."""
    BROKEN_ENTRY_POINT = "broken_entry_point"
    """An entry point names a module or attribute that does not exist, or no extension function."""
    UNDECLARED_DEPENDENCY = "undeclared_dependency"
    """The extension imports a third-party module its package does not depend on."""
    IMPORT_ERROR = "import_error"
    """Importing the extension module raised."""
    EXTENSION_ERROR = "extension_error"
    """``extension(api)`` (or a ``session_start`` / ``resources_discover`` handler) raised."""
    TOOL_REGISTRATION = "tool_registration"
    """``api.register_tool`` raised, or a registered tool is unusable (name, schema, duplicate)."""
    SKILL_ERROR = "skill_error"
    """A skill path an extension announces is missing from the install, or a skill file is invalid."""
    EXPECTATION = "expectation"
    """What loaded differs from ``expect``."""
    SMOKE_FAILED = "smoke_failed"
    """The smoke playbook failed inside the sandbox."""
    SANDBOX_ERROR = "sandbox_error"
    """The check itself failed (the sandbox interpreter crashed or timed out)."""


@dataclass
class Problem:
    """One thing wrong with the package, as found in the sandbox."""

    kind: ProblemKind
    message: str
    """What happened and where."""
    explanation: str = ""
    """Why it happens."""
    fix: str = ""
    """What to do about it."""
    details: str = ""
    """Raw evidence: installer/build output or a traceback."""
    extension: str | None = None
    """The entry point (``name = value``) concerned, when there is one."""
    data: dict[str, Any] = field(default_factory=dict)

    def describe(self, *, details: bool = True, limit: int = 2000) -> str:
        lines = [f"[{self.kind.value}] {self.message}"]
        if self.explanation:
            lines.append(f"  why: {self.explanation}")
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        if details and self.details.strip():
            text = self.details.strip()
            if len(text) > limit:
                text = "...\n" + text[-limit:]
            lines.append("  details:\n    " + text.replace("\n", "\n    "))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": self.kind.value, "message": self.message, "explanation": self.explanation, "fix": self.fix,
        }
        if self.details:
            d["details"] = self.details
        if self.extension is not None:
            d["extension"] = self.extension
        if self.data:
            d["data"] = self.data
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Problem:
        return cls(
            ProblemKind(d["kind"]), str(d["message"]), str(d.get("explanation", "")), str(d.get("fix", "")),
            str(d.get("details", "")), d.get("extension"), dict(d.get("data") or {}),
        )


__all__ = ["Problem", "ProblemKind", "SandboxStepError"]
