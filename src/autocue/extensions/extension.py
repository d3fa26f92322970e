"""What one loaded extension registered: handlers, tools, commands, flags, renderers.

An ``Extension`` is created by the loader for each extension module or factory; the
``ExtensionAPI`` the extension receives writes into it. ``loading`` is true until the
extension's ``extension(api)`` function has returned (or its coroutine finished).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any, Literal, TypeAlias

from autocue.agent.tool import AgentTool
from autocue.extensions.errors import ExtensionRuntimeError as ExtensionRuntimeError

Handler: TypeAlias = Callable[..., Any]
"""``handler(event, ctx)`` or ``handler(event)``; sync or async."""

NormalizedHandler: TypeAlias = Callable[[Any, Any], Any]

CommandHandler: TypeAlias = Callable[..., "Awaitable[Any] | Any"]
"""``handler(args: str, ctx: ExtensionCommandContext)`` (or ``handler(args)``); sync or async."""


NOT_INITIALIZED = (
    "Extension runtime not initialized. Action methods cannot be called during extension loading. "
    "Call them from an event handler (e.g. on 'session_start'), a command, or a tool instead."
)


@dataclass(slots=True)
class RegisteredCommand:
    name: str
    handler: CommandHandler
    description: str | None = None
    get_argument_completions: Callable[[str], Any] | None = None
    extension: Extension | None = None


@dataclass(slots=True)
class RegisteredFlag:
    name: str
    type: Literal["boolean", "string"] = "boolean"
    description: str | None = None
    default: Any = None
    extension: Extension | None = None


@dataclass(slots=True)
class CommandInfo:
    """An entry of ``get_commands()``."""

    name: str
    description: str | None
    source: Literal["extension", "prompt", "skill"]
    path: str | None = None


@dataclass(eq=False)
class Extension:
    """One loaded extension and everything it registered (in registration order)."""

    name: str
    path: str
    """The file, ``module:<name>``, ``entry-point:<name>`` or ``<factory name>`` it came from."""
    handlers: dict[str, list[NormalizedHandler]] = field(default_factory=dict)
    tools: dict[str, AgentTool] = field(default_factory=dict)
    commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    flags: dict[str, RegisteredFlag] = field(default_factory=dict)
    shortcuts: dict[str, Any] = field(default_factory=dict)
    message_renderers: dict[str, Any] = field(default_factory=dict)
    ttsr_rules: list[Any] = field(default_factory=list)
    """``add_ttsr_rule`` rules (a ``TtsrRule`` or its dict form; the session checks them)."""
    providers: dict[str, Any] = field(default_factory=dict)
    """``register_provider`` providers by name (``RegisteredProvider``)."""
    loading: bool = True
    pending: Awaitable[Any] | None = None
    """The coroutine of an async ``extension(api)`` not awaited yet (awaited when the session binds)."""

    def __repr__(self) -> str:
        return f"<Extension {self.name} from {self.path}>"


def _positional_params(fn: Handler) -> tuple[int, bool] | None:
    """``(positional parameters, takes *args)`` of ``fn``, or None when that cannot be told.

    A plain function is read from its code object (``inspect.signature`` costs tens of µs, paid
    for every handler of every session); anything else (bound methods, partials, callables,
    functions whose signature was overridden or that wrap another) goes through ``inspect``."""
    if type(fn) is FunctionType and not hasattr(fn, "__wrapped__") and not hasattr(fn, "__signature__"):
        code = fn.__code__
        return code.co_argcount, bool(code.co_flags & inspect.CO_VARARGS)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return positional, any(p.kind == p.VAR_POSITIONAL for p in params)


def normalize_handler(fn: Handler) -> NormalizedHandler:
    """Make every handler callable as ``fn(event, ctx)``."""
    shape = _positional_params(fn)
    if shape is None:
        return fn
    positional, varargs = shape
    if varargs or positional >= 2:
        return fn
    if positional == 1:
        def one(event: Any, ctx: Any, _fn: Handler = fn) -> Any:
            return _fn(event)

        one.__wrapped__ = fn  # type: ignore[attr-defined]
        return one

    def none(event: Any, ctx: Any, _fn: Handler = fn) -> Any:
        return _fn()

    none.__wrapped__ = fn  # type: ignore[attr-defined]
    return none


__all__ = [
    "NOT_INITIALIZED", "CommandHandler", "CommandInfo", "Extension", "ExtensionRuntimeError", "Handler",
    "NormalizedHandler", "RegisteredCommand", "RegisteredFlag", "normalize_handler",
]
