"""The replies the server keeps for later requests that name them (``WireApi.keep``): Gemini's
``previous_interaction_id`` and ``GET /v1/interactions/{id}``. Bounded: the least recently used
go first."""

from __future__ import annotations

from collections import OrderedDict

from autocue.mockllm.wire.view import Kept


class KeptReplies:
    """Kept replies by id, at most ``limit`` of them (least recently used dropped first)."""

    def __init__(self, limit: int = 1000) -> None:
        self.limit = max(0, limit)
        self._items: OrderedDict[str, Kept] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: str) -> Kept | None:
        got = self._items.get(key)
        if got is not None:
            self._items.move_to_end(key)
        return got

    def put(self, key: str, kept: Kept) -> None:
        self._items[key] = kept
        self._items.move_to_end(key)
        while len(self._items) > self.limit:
            self._items.popitem(last=False)
