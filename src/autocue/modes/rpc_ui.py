"""``RpcUI``: the extension UI over the RPC channel (pi's extension UI sub-protocol).

Dialogs write ``{"type":"extension_ui_request","id","method",...}`` to stdout and wait for
the client's ``{"type":"extension_ui_response","id",...}`` on stdin:

| method | request fields | response |
|---|---|---|
| ``select`` | ``title, options, timeout?`` | ``{value}`` or ``{cancelled:true}`` |
| ``confirm`` | ``title, message, timeout?`` | ``{confirmed}`` or ``{cancelled:true}`` |
| ``input`` | ``title, placeholder, timeout?`` | ``{value}`` or ``{cancelled:true}`` |
| ``editor`` | ``title, prefill, timeout?`` | ``{value}`` or ``{cancelled:true}`` |

Fire-and-forget requests: ``notify{message, notifyType}``, ``setStatus{statusKey,
statusText}``, ``setWidget{widgetKey, widgetLines, widgetPlacement}``, ``setTitle{title}``.
A dialog that times out or whose abort signal fires returns ``CANCELLED``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from autocue.extensions.ui import CANCELLED, BaseUI, Cancelled, NotifyLevel, TextDialog, WidgetPlacement, run_dialog
from autocue.llm.abort import AbortSignal

_DETAIL_FIELDS = {"select": "options", "input": "placeholder", "editor": "prefill"}


class RpcUI(BaseUI):
    """``set_working_message`` does nothing: it is TUI-only in pi's RPC mode."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ responses from the client
    def resolve(self, response: dict[str, Any]) -> bool:
        """Deliver an ``extension_ui_response``; False when no dialog waits for its id."""
        fut = self._pending.pop(str(response.get("id")), None)
        if fut is None or fut.done():
            return False
        fut.set_result(response)
        return True

    def cancel_all(self) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_result({"cancelled": True})
        self._pending.clear()

    async def _dialog(
        self, method: str, fields: dict[str, Any], timeout: float | None, signal: AbortSignal | None
    ) -> dict[str, Any] | Cancelled:
        rid = f"ui-{next(self._ids)}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        req: dict[str, Any] = {"type": "extension_ui_request", "id": rid, "method": method, **fields}
        if timeout is not None:
            req["timeout"] = int(timeout * 1000)
        self._send(req)
        try:
            r = await run_dialog(fut, timeout=timeout, signal=signal)
        finally:
            self._pending.pop(rid, None)
        if isinstance(r, Cancelled) or r.get("cancelled") is True:
            return CANCELLED
        return r

    async def _text(
        self, kind: TextDialog, title: str, detail: Any, timeout: float | None, signal: AbortSignal | None
    ) -> str | Cancelled | None:
        """A dialog answered by ``{value}``: the string, or None when the value is not one."""
        fields = {"title": title, _DETAIL_FIELDS[kind]: list(detail) if kind == "select" else detail}
        r = await self._dialog(kind, fields, timeout, signal)
        if isinstance(r, Cancelled):
            return r
        v = r.get("value")
        return v if isinstance(v, str) else None

    async def _confirm(
        self, title: str, message: str, timeout: float | None, signal: AbortSignal | None
    ) -> bool | Cancelled:
        r = await self._dialog("confirm", {"title": title, "message": message}, timeout, signal)
        if isinstance(r, Cancelled):
            return r
        return bool(r.get("confirmed", r.get("value", False)))

    # ------------------------------------------------------------------ fire and forget
    def _fire(self, method: str, fields: dict[str, Any]) -> None:
        self._send({"type": "extension_ui_request", "id": f"ui-{next(self._ids)}", "method": method, **fields})

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self._fire("notify", {"message": message, "notifyType": level})

    def set_status(self, key: str, text: str | None) -> None:
        self._fire("setStatus", {"statusKey": key, "statusText": text})

    def set_widget(
        self, key: str, lines: Sequence[str] | None, *, placement: WidgetPlacement = "aboveEditor"
    ) -> None:
        self._fire(
            "setWidget",
            {"widgetKey": key, "widgetLines": None if lines is None else list(lines), "widgetPlacement": placement},
        )

    def set_title(self, title: str) -> None:
        self._fire("setTitle", {"title": title})


__all__ = ["RpcUI"]
