"""Reading a recorded reply back: its wire API's ``read_reply``.

The proxy keeps each reply as it arrived: ``(seconds since the request was sent, bytes)``
chunks. ``parse_reply(api, chunks, ...)`` hands them to the wire API (``autocue.mockllm.wire``);
the built-in ones decode them with the providers' SSE decoder and run autocue's provider of
the API over the events (``mockllm/wire/readback.py``), so a recording reads the wire exactly
as autocue's providers do. The result is the final ``AssistantMessage`` plus, for every
content block, when its first piece arrived. A Responses tool call keeps its ``call_id`` as id
(the provider's ``call_id|item_id`` pair is cut; item ids are the server's to choose).

While the reply passes, its chunks go into a ``ReplySpool`` (in memory up to ``SPOOL_MEMORY``
bytes, then a temporary file on disk) up to a cap; a reply past the cap is still forwarded
whole but not recorded. Parsing happens after the reply has been sent on to the client, in a
worker thread (``RecordingProxy``): recording never delays a byte of the stream, nor another
client.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

from autocue.catalog.apis import APIS
from autocue.llm.providers.http import HttpProvider
from autocue.mockllm.wire.api import Chunk
from autocue.mockllm.wire.readback import provider_class
from autocue.mockllm.wire.registry import wire_api
from autocue.scenario.writer import TimedReply

__all__ = ["PROVIDERS", "SPOOL_MEMORY", "Chunk", "ReplySpool", "parse_reply"]

SPOOL_MEMORY = 1024 * 1024
"""Bytes of a reply a ``ReplySpool`` keeps in memory; past them it is on disk."""


class ReplySpool:
    """A reply's chunks as they pass, up to ``cap`` bytes: past it the spool is dropped and
    only counted (``over``), so a reply of any size takes at most ``SPOOL_MEMORY`` bytes of memory
    while it streams."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.size = 0
        self.over = False
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115 - closed by close()
        self._marks: list[tuple[float, int]] = []

    def add(self, t: float, data: bytes) -> None:
        self.size += len(data)
        if self.over:
            return
        if self.size > self.cap:
            self.over = True
            self.close()
            return
        self._file.write(data)
        self._marks.append((t, len(data)))

    def chunks(self) -> list[Chunk]:
        """The chunks kept (none once ``over``); reads the spool back (call it off the event loop)."""
        if self.over:
            return []
        self._file.seek(0)
        return [(t, self._file.read(n)) for t, n in self._marks]

    def close(self) -> None:
        self._file.close()
        self._marks = []


PROVIDERS: dict[str, tuple[type[HttpProvider], str]] = {
    e.name: (provider_class(e.provider_api), e.provider_api) for e in APIS.values() if e.provider_api
}
"""Per wire API, the provider that speaks it (and its ``Model.api``); ``record --check`` asks with it."""


async def parse_reply(api: str, chunks: Sequence[Chunk], *, event_stream: bool, model: str = "recorded") -> TimedReply:
    """The assistant message in ``chunks`` as the wire API ``api`` reads a recorded reply back."""
    return await wire_api(api).read_reply(chunks, event_stream=event_stream, model=model)
