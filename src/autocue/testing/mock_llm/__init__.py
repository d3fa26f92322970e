"""The mock LLM in process: ``MockLLM`` (transports for httpx2 and httpx, the official clients
on them, the journal and the checks), without a socket or a thread. docs/testing.md,
"LLM clients in process"."""

from autocue.testing.mock_llm.driver import Exchanged
from autocue.testing.mock_llm.mock import API_KEY, BASE_URL, MockLLM

__all__ = ["API_KEY", "BASE_URL", "Exchanged", "MockLLM"]
