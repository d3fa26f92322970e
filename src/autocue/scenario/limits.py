"""The limits the scenario loader enforces, so a hostile or broken file fails fast and clearly.

Every limit raises ``ScenarioError`` with ``file:line:col`` (see ``yamlsrc.parse_documents``):

- ``MAX_DOCUMENT_BYTES``: a scenario file (all its YAML documents) is at most 2 MiB of UTF-8.
  Files are read only that far, so a huge file costs no memory.
- ``MAX_DEPTH``: mappings and lists nest at most 100 levels, counting levels reached through
  aliases (the error names the value, or the alias, that goes deeper).
- Aliases (``*name``) reuse a value without copying it, but whatever later walks the data sees
  every copy. Per document, the values reached through aliases may add at most
  ``ALIAS_NODES_MIN`` (10,000) plus as many values as the document writes, and at most
  ``ALIAS_CHARS_MIN`` (1,000,000) plus as many characters of text as the document has. A
  "billion laughs" alias bomb stops at the alias that crosses the budget.
"""

from __future__ import annotations

MAX_DOCUMENT_BYTES = 2 * 1024 * 1024
"""Largest scenario file, in bytes of UTF-8."""

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists (the top-level mapping is level 1)."""

ALIAS_NODES_MIN = 10_000
"""Values aliases may always add to a document (the budget is this plus the values written)."""

ALIAS_CHARS_MIN = 1_000_000
"""Characters of text aliases may always add (the budget is this plus the document's length)."""
