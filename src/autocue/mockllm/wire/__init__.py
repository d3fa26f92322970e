"""Wire renderers: one module per API, each with ``json_body(reply, req)`` (the non-streaming
response) and ``stream(reply, req)`` (the SSE frames, grouped into timed segments).

A segment is ``(delay_seconds, bytes)``: the server waits ``delay`` then sends ``bytes``.
With no delays the segments are joined and sent as one body.
"""

from __future__ import annotations

from autocue.mockllm.wire import anthropic, chat, gemini, responses
from autocue.mockllm.wire.common import Segments

__all__ = ["Segments", "anthropic", "chat", "gemini", "responses"]
