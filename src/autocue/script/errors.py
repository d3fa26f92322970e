"""The script model's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class ChaosSpecError(AutocueError, ValueError):
    """A chaos spec that does not parse: the message names the item, its column and the fix."""


class SchemaValueError(AutocueError, ValueError):
    """No value satisfies a JSON Schema (``schema_values.schema_value``): a contradictory schema, or one
    beyond the generator; the message says why."""


__all__ = ["ChaosSpecError", "SchemaValueError"]
