"""``MockUI``: the ``ctx.ui`` extensions get in a test. Every call is recorded.

``mock_ui`` options: ``confirm`` bool or ``callable(title, message)``; ``select`` index, item
value, or ``callable(title, items)``; ``input`` str or ``callable(title, placeholder)``;
``editor`` str or ``callable(title, prefilled)``. ``CANCEL`` as a value or a return value means
the user cancelled (the dialog returns ``CANCELLED``). Defaults: confirm ``True``, select the
first item, input ``""``, editor ``""``. Callables may be sync or async.

With ``has_ui=False`` extensions get ``RecordingNoUI``: pi's no-UI answers (confirm ``False``,
the other dialogs ``None``), still recorded.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from autocue.extensions.ui import CANCELLED, Cancelled, NotifyLevel, WidgetPlacement
from autocue.llm.abort import AbortSignal

Recorder = Callable[[str, list[Any], Any], None]

UI_OPTIONS = ("confirm", "select", "input", "editor")


async def _resolve(value: Any) -> Any:
    if inspect.isawaitable(value):
        value = await value
    return value


class _RecordingFireAndForget:
    _record: Recorder

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self._record("notify", [message, level], None)

    def set_status(self, key: str, text: str | None) -> None:
        self._record("set_status", [key, text], None)

    def set_widget(self, key: str, lines: Sequence[str] | None, *, placement: WidgetPlacement = "aboveEditor") -> None:
        self._record("set_widget", [key, list(lines) if lines is not None else None, placement], None)

    def set_title(self, title: str) -> None:
        self._record("set_title", [title], None)

    def set_working_message(self, message: str | None = None) -> None:
        self._record("set_working_message", [message], None)

    def set_footer(self, footer: Any = None) -> None:
        self._record("set_footer", [footer], None)

    def set_header(self, header: Any = None) -> None:
        self._record("set_header", [header], None)

    def set_editor_text(self, text: str) -> None:
        self._record("set_editor_text", [text], None)

    def paste_to_editor(self, text: str) -> None:
        self._record("paste_to_editor", [text], None)

    def get_editor_text(self) -> str:
        self._record("get_editor_text", [], "")
        return ""

    async def custom(self, *args: Any, **kwargs: Any) -> None:
        self._record("custom", list(args), None)
        return None


class MockUI(_RecordingFireAndForget):
    """A UI that answers dialogs from ``mock_ui`` options and records every call."""

    def __init__(self, options: Mapping[str, Any] | None, record: Recorder) -> None:
        opts = dict(options or {})
        unknown = set(opts) - set(UI_OPTIONS)
        if unknown:
            raise TypeError(
                f"mock_ui got unknown option(s) {sorted(unknown)}; the dialogs are {', '.join(UI_OPTIONS)} "
                "(fire-and-forget calls are always recorded)"
            )
        self._opts = opts
        self._record = record

    async def _text(self, dialog: str, title: str, hint: str | None) -> str | Cancelled | None:
        """``input`` / ``editor``: the option's string, or what its callable returns for ``(title, hint)``."""
        spec = self._opts.get(dialog, "")
        value = await _resolve(spec(title, hint)) if callable(spec) else spec
        self._record(dialog, [title, hint], value)
        return value  # type: ignore[no-any-return]

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> str | Cancelled | None:
        items = list(options)
        spec = self._opts.get("select", 0)
        if callable(spec):
            value = await _resolve(spec(title, items))
        elif spec is CANCELLED:
            value = CANCELLED
        elif isinstance(spec, bool) or not isinstance(spec, (int, str)):
            raise TypeError(f"mock_ui['select'] must be an index, an item, a callable or CANCEL, got {spec!r}")
        elif isinstance(spec, int):
            if not items:
                value = None
            elif not -len(items) <= spec < len(items):
                raise IndexError(
                    f"mock_ui['select']={spec} but select({title!r}) offered only {len(items)} items: {items}"
                )
            else:
                value = items[spec]
        else:
            if spec not in items:
                raise ValueError(
                    f"mock_ui['select']={spec!r} is not among the items select({title!r}) offered: {items}"
                )
            value = spec
        self._record("select", [title, items], value)
        return value  # type: ignore[no-any-return]

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> bool | Cancelled:
        spec = self._opts.get("confirm", True)
        value = await _resolve(spec(title, message)) if callable(spec) else spec
        if value is not CANCELLED and not isinstance(value, bool):
            raise TypeError(f"mock_ui['confirm'] must give a bool or CANCEL, got {value!r}")
        self._record("confirm", [title, message], value)
        return value  # type: ignore[no-any-return]

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        return await self._text("input", title, placeholder)

    async def editor(
        self, title: str, prefill: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        return await self._text("editor", title, prefill)


class RecordingNoUI(_RecordingFireAndForget):
    """pi's no-UI answers (confirm False, other dialogs None), with every call recorded."""

    def __init__(self, record: Recorder) -> None:
        self._record = record

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> str | Cancelled | None:
        self._record("select", [title, list(options)], None)
        return None

    async def confirm(
        self, title: str, message: str = "", *, timeout: float | None = None, signal: AbortSignal | None = None
    ) -> bool | Cancelled:
        self._record("confirm", [title, message], False)
        return False

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        self._record("input", [title, placeholder], None)
        return None

    async def editor(
        self, title: str, prefill: str | None = None, *, timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | Cancelled | None:
        self._record("editor", [title, prefill], None)
        return None
