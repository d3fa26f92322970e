"""The redactor lives in ``autocue.scenario.redact`` (the in-process recorder of ``autocue.testing``
uses it too); this module keeps the old import path."""

from __future__ import annotations

from autocue.scenario.redact import DEFAULT_PATTERNS, REDACTED, RedactionError, Redactor

__all__ = ["DEFAULT_PATTERNS", "REDACTED", "RedactionError", "Redactor"]
