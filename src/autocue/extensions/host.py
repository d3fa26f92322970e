"""What extensions need of the session that hosts them: the ``SessionHost`` protocol.

``autocue.session.AgentSession`` implements it; extensions (``ExtensionAPI``, ``ctx``) see the
session only through it, so ``extensions`` never imports ``session`` (the layer rule of
docs/architecture.md). ``ToolInfo`` (an entry of ``get_all_tools()``), ``ContextUsage`` and
``ReadonlySessionManager`` (what ``ctx`` hands out) live here for the same reason; ``context.py``
builds ``ctx`` on top of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from autocue.extensions.events import CustomMessageSpec
from autocue.extensions.extension import CommandInfo
from autocue.extensions.ui import ExtensionUIContext
from autocue.llm.types import JSON, Model, UserContent


@dataclass(slots=True)
class ToolInfo:
    """An entry of ``get_all_tools()``."""

    name: str
    description: str
    parameters: JSON
    source: Literal["builtin", "extension"]
    active: bool
    extension_path: str | None = None
    overrides_builtin: bool = False
    """An extension tool that replaced a built-in (or ``tools=``) tool of the same name."""


@dataclass(slots=True)
class ContextUsage:
    """How full the context window is: ``tokens`` (estimated) of ``context_window``, ``percent``."""

    tokens: int | None
    context_window: int
    percent: float | None


_READ_ONLY = (
    "get_leaf_id", "get_leaf_entry", "get_entry", "get_branch", "get_tree", "get_children", "get_label",
    "get_entries", "get_header", "get_session_name", "get_cwd", "get_session_dir", "get_session_file",
    "get_session_id", "is_persisted", "build_session_context",
)


class ReadonlySessionManager:
    """The read-only view of the ``SessionManager`` extensions get (``get_*``, ``build_session_context``).

    Writing goes through the API (``api.append_entry``, ``api.set_session_name``, ...), so the
    session stays the only writer.
    """

    __slots__ = ("_sm",)

    def __init__(self, sm: Any) -> None:
        self._sm = sm

    def __getattr__(self, name: str) -> Any:
        if name in _READ_ONLY:
            return getattr(self._sm, name)
        raise AttributeError(
            f"ctx.session_manager is read-only: {name!r} is not available to extensions. "
            "Use api.append_entry / api.set_session_name / api.set_label to write."
        )

    def __dir__(self) -> list[str]:
        return [n for n in _READ_ONLY if hasattr(self._sm, n)]


class SessionWriter(Protocol):
    """The writing calls of the session file that the extension API forwards."""

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str: ...

    def append_label_change(self, target_id: str, label: str | None) -> str: ...

    def get_session_name(self) -> str | None: ...


class SessionHost(Protocol):
    """The session an extension runner is bound to (``AgentSession``)."""

    cwd: str
    ui: ExtensionUIContext
    has_ui: bool

    @property
    def session_manager(self) -> SessionWriter: ...

    @property
    def readonly_session_manager(self) -> ReadonlySessionManager: ...

    @property
    def model(self) -> Model: ...

    @property
    def thinking_level(self) -> str: ...

    @property
    def system_prompt(self) -> str: ...

    @property
    def is_streaming(self) -> bool: ...

    def abort_nowait(self) -> None: ...

    def has_pending_messages(self) -> bool: ...

    def get_context_usage(self) -> ContextUsage: ...

    def schedule_compaction(
        self,
        custom_instructions: str | None = None,
        *,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[Any]: ...

    def schedule_dispose(self) -> asyncio.Task[None]: ...

    async def wait_for_idle(self) -> None: ...

    async def navigate_tree(self, target_id: str | None, *, summary: str | None = None) -> bool: ...

    async def new_session(self) -> bool: ...

    async def send_custom_message(
        self,
        message: CustomMessageSpec | dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: Literal["steer", "follow_up", "next_turn"] = "steer",
    ) -> None: ...

    async def send_user_message(
        self,
        content: str | Sequence[UserContent],
        *,
        deliver_as: Literal["steer", "follow_up", "next_turn"] | None = None,
    ) -> None: ...

    def set_session_name(self, name: str) -> None: ...

    def get_active_tool_names(self) -> list[str]: ...

    def get_all_tools(self) -> list[ToolInfo]: ...

    def set_active_tools(self, names: Sequence[str]) -> None: ...

    def get_commands(self) -> list[CommandInfo]: ...

    async def set_model(self, model: Model) -> None: ...

    def set_thinking_level(self, level: str) -> None: ...


__all__ = ["ContextUsage", "ReadonlySessionManager", "SessionHost", "SessionWriter", "ToolInfo"]
