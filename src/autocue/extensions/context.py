"""The ``ctx`` handlers receive: ``ExtensionContext`` and, for commands, ``ExtensionCommandContext``.

``ctx.ui`` / ``ctx.has_ui`` / ``ctx.cwd`` / ``ctx.session_manager`` (read-only) / ``ctx.model``;
``ctx.is_idle()``, ``ctx.abort()``, ``ctx.has_pending_messages()``, ``ctx.get_context_usage()``,
``ctx.compact(...)`` (schedules a compaction, returns an ``asyncio.Task``), ``ctx.get_system_prompt()``,
``ctx.shutdown()`` (schedules ``session.dispose()``).

Command handlers get ``ExtensionCommandContext``, which adds ``await ctx.wait_for_idle()``,
``await ctx.navigate_tree(target_id)`` and ``await ctx.new_session()``.

``ContextUsage`` and ``ReadonlySessionManager`` are defined with the ``SessionHost`` protocol
(``host.py``, whose vocabulary they are) and importable from here too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from autocue.extensions.host import ContextUsage, ReadonlySessionManager, SessionHost
from autocue.extensions.ui import ExtensionUIContext
from autocue.llm.types import Model


class ExtensionContext:
    """What every handler receives as ``ctx``."""

    def __init__(self, session: SessionHost) -> None:
        self._session = session

    @property
    def ui(self) -> ExtensionUIContext:
        return self._session.ui

    @property
    def has_ui(self) -> bool:
        return self._session.has_ui

    @property
    def cwd(self) -> str:
        return self._session.cwd

    @property
    def session_manager(self) -> ReadonlySessionManager:
        return self._session.readonly_session_manager

    @property
    def model(self) -> Model:
        return self._session.model

    def is_idle(self) -> bool:
        return not self._session.is_streaming

    def abort(self) -> None:
        self._session.abort_nowait()

    def has_pending_messages(self) -> bool:
        return self._session.has_pending_messages()

    def get_context_usage(self) -> ContextUsage:
        return self._session.get_context_usage()

    def get_system_prompt(self) -> str:
        return self._session.system_prompt

    def compact(
        self,
        custom_instructions: str | None = None,
        *,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[Any]:
        """Schedule a compaction once the agent is idle; returns the task (do not await it from a
        handler of the running turn: it waits for that turn to end)."""
        return self._session.schedule_compaction(custom_instructions, on_complete=on_complete, on_error=on_error)

    def shutdown(self) -> asyncio.Task[None]:
        """Schedule ``session.dispose()`` once the agent is idle."""
        return self._session.schedule_dispose()


class ExtensionCommandContext(ExtensionContext):
    """``ctx`` of a command handler: adds session control."""

    async def wait_for_idle(self) -> None:
        await self._session.wait_for_idle()

    async def navigate_tree(self, target_id: str | None) -> bool:
        """Move the leaf to ``target_id``; returns False when an extension cancelled."""
        return await self._session.navigate_tree(target_id)

    async def new_session(self) -> bool:
        """Start a fresh session (same file directory); returns False when an extension cancelled."""
        return await self._session.new_session()


__all__ = ["ContextUsage", "ExtensionCommandContext", "ExtensionContext", "ReadonlySessionManager"]
