"""The mock LLM server's exceptions (the error *bodies* it answers with are ``error_bodies``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class MockLLMError(AutocueError):
    """The root of the mock server's exceptions."""


class MalformedRequestError(MockLLMError, ValueError):
    """A malformed request: the message names the key."""


class UnknownApiError(MockLLMError, KeyError):
    """A name no wire API has."""


class ScenarioSourceError(MockLLMError, ValueError):
    """A scenario source could not be loaded (names the path and the loader's reason).

    ``status`` is the HTTP status the admin API answers with: 400 (cannot load), 403 (a path
    the server may not read), 413 (too large)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class PinLimitError(MockLLMError, ValueError):
    """A new pin past ``MAX_PINS`` (the admin API answers 409)."""


class FuzzSpecError(MockLLMError, ValueError):
    """A fuzz spec that does not parse (the message names the item and the fix)."""


class EventStreamError(MockLLMError, ValueError):
    """Bytes that are no AWS event-stream message (a wrong length or CRC)."""


__all__ = ["EventStreamError", "FuzzSpecError", "MalformedRequestError", "MockLLMError", "PinLimitError",
           "ScenarioSourceError", "UnknownApiError"]
