"""autocue: deterministic testing for LLM agents. The playbook is the model."""

__version__ = "0.1.0"
