"""The errors of messages, models and providers (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class AbortError(AutocueError):
    """Raised by ``AbortSignal.throw_if_aborted``; message is the abort reason."""


class ModelRegistryError(AutocueError, ValueError):
    """A bad ``models.json`` or an unknown model; the message says where and what to do."""


class ProviderError(AutocueError):
    """A provider call that failed: an HTTP error, or an error inside the stream."""


class ProviderHTTPError(ProviderError):
    """A failed API call: HTTP status, the message from the body, and retry-after seconds."""

    def __init__(self, status: int, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


class ProviderStreamError(ProviderError):
    """The server reported an error inside the stream, or the stream broke its protocol."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


__all__ = ["AbortError", "ModelRegistryError", "ProviderError", "ProviderHTTPError", "ProviderStreamError"]
