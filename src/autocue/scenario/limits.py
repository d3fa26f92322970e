"""The limits the scenario loader enforces, so a hostile or broken file fails fast and clearly.

Every limit raises ``ScenarioError`` with ``file:line:col`` (see ``yamlsrc.parse_documents``):

- ``MAX_DOCUMENT_BYTES``: a scenario file (all its YAML documents) is at most 2 MiB of UTF-8.
  Files are read only that far, so a huge file costs no memory.
- ``MAX_DEPTH``, ``ALIAS_NODES_MIN``, ``ALIAS_CHARS_MIN``: the limits of autocue's YAML loader
  (``autocue.yamlpos``, where they are described): nesting depth and the alias budget.
"""

from __future__ import annotations

from autocue.yamlpos import ALIAS_CHARS_MIN, ALIAS_NODES_MIN, MAX_DEPTH

MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
"""Largest scenario file, in bytes of UTF-8."""


__all__ = ["ALIAS_CHARS_MIN", "ALIAS_NODES_MIN", "MAX_DEPTH", "MAX_DOCUMENT_BYTES"]
