"""autocue: deterministic testing for LLM agents. The playbook is the model."""

from autocue.errors import AutocueError

__version__ = "0.1.0"

__all__ = ["AutocueError", "__version__"]
