"""The UI an extension talks to: ``ExtensionUIContext``, the ``CANCELLED`` sentinel, and the no-UI context.

Dialogs (``select``, ``confirm``, ``input``, ``editor``) are async and accept ``timeout``
(seconds) and ``signal`` (an ``AbortSignal``). A dialog the user dismissed, that timed out or
whose signal fired returns ``CANCELLED``, a falsy singleton, so ``if await ui.confirm(...)``
treats a cancel as "no" while ``result is CANCELLED`` tells the two apart.

Fire-and-forget calls (``notify``, ``set_status``, ``set_widget``, ``set_title``,
``set_working_message``) return nothing.

``NoUIContext`` is what extensions get when there is no UI (print/json modes, ``has_ui``
false): ``confirm`` → ``False``, ``select``/``input``/``editor`` → ``None``, the rest do nothing.
``BaseUI`` (what ``NoUIContext`` is) is a base for UI implementations, and ``run_dialog`` gives
them the timeout and abort handling for free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, runtime_checkable

from autocue import suite_coverage
from autocue.llm.abort import AbortSignal

T = TypeVar("T")

NotifyLevel: TypeAlias = Literal["info", "warning", "error"]
WidgetPlacement: TypeAlias = Literal["aboveEditor", "belowEditor"]
TextDialog: TypeAlias = Literal["select", "input", "editor"]


class Cancelled:
    """The type of ``CANCELLED``: the user dismissed a dialog (or it timed out / was aborted)."""

    _instance: Cancelled | None = None

    def __new__(cls) -> Cancelled:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "CANCELLED"

    def __reduce__(self) -> str:
        return "CANCELLED"


CANCELLED = Cancelled()
"""Returned by a dialog that was cancelled, timed out, or aborted. Falsy."""


@runtime_checkable
class ExtensionUIContext(Protocol):
    """What ``ctx.ui`` offers. Implement it to give extensions a real UI (or a recording mock)."""

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> str | Cancelled | None: ...

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> bool | Cancelled: ...

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None: ...

    async def editor(
        self, title: str, prefill: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None: ...

    # fire and forget: a class that subclasses the protocol inherits these no-ops
    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: Sequence[str] | None, *, placement: WidgetPlacement = "aboveEditor") -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_working_message(self, message: str | None = None) -> None:
        return None


class BaseUI(ExtensionUIContext):
    """A base for UI implementations, answering as ``NoUIContext`` until overridden.

    ``select``, ``input`` and ``editor`` ask ``_text``; ``confirm`` asks ``_confirm``; the
    fire-and-forget calls do nothing.
    """

    async def _text(
        self, kind: TextDialog, title: str, detail: Any, timeout: float | None, signal: AbortSignal | None
    ) -> str | Cancelled | None:
        """Answer a text dialog; ``detail`` is its options (select), placeholder (input) or prefill (editor)."""
        return None

    async def _confirm(
        self, title: str, message: str, timeout: float | None, signal: AbortSignal | None
    ) -> bool | Cancelled:
        return False

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> str | Cancelled | None:
        if suite_coverage.COLLECTOR is not None:
            suite_coverage.COLLECTOR.dialog("select", title)
        return await self._text("select", title, options, timeout, signal)

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> bool | Cancelled:
        if suite_coverage.COLLECTOR is not None:
            suite_coverage.COLLECTOR.dialog("confirm", title)
        return await self._confirm(title, message, timeout, signal)

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        if suite_coverage.COLLECTOR is not None:
            suite_coverage.COLLECTOR.dialog("input", title)
        return await self._text("input", title, placeholder, timeout, signal)

    async def editor(
        self, title: str, prefill: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        if suite_coverage.COLLECTOR is not None:
            suite_coverage.COLLECTOR.dialog("editor", title)
        return await self._text("editor", title, prefill, timeout, signal)


class NoUIContext(BaseUI):
    """The UI when there is none: ``confirm`` → ``False``, other dialogs → ``None``, the rest no-ops."""

    def __repr__(self) -> str:
        return "NoUIContext()"


NO_UI = NoUIContext()
"""The shared no-UI context."""


async def run_dialog(
    answer: Awaitable[T], *, timeout: float | None = None, signal: AbortSignal | None = None
) -> T | Cancelled:
    """Await a dialog's answer; ``CANCELLED`` when ``timeout`` seconds pass or ``signal`` fires first.

    For UI implementations: wrap the coroutine that waits for the user in this.
    """
    if signal is not None and signal.aborted:
        if asyncio.iscoroutine(answer):
            answer.close()
        return CANCELLED
    task: asyncio.Future[T] = asyncio.ensure_future(answer)
    waiters: set[asyncio.Future[Any]] = {task}
    abort_task: asyncio.Future[Any] | None = None
    if signal is not None:
        abort_task = asyncio.ensure_future(signal.wait())
        waiters.add(abort_task)
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        return CANCELLED
    finally:
        for w in waiters:
            if not w.done():
                w.cancel()


__all__ = [
    "CANCELLED", "NO_UI", "BaseUI", "Cancelled", "ExtensionUIContext", "NoUIContext", "NotifyLevel", "TextDialog",
    "WidgetPlacement", "run_dialog",
]
