"""``ExtensionAPI``: the object an extension's ``extension(api)`` function receives.

Registration (allowed while loading): ``on``, ``register_tool``, ``register_command``,
``register_flag`` / ``get_flag``, ``register_shortcut``, ``register_message_renderer``, ``events``.

Actions (only once the session runs; while loading they raise ``ExtensionRuntimeError``):
``send_message``, ``send_user_message``, ``append_entry``, ``set_session_name`` /
``get_session_name``, ``set_label``, ``get_active_tools`` / ``set_active_tools``,
``get_all_tools``, ``get_commands``, ``set_model``, ``get_thinking_level`` /
``set_thinking_level``, ``ctx``. ``exec`` works at any time.

Extension tools are ``autocue.agent.AgentTool``s. ``register_tool`` also takes a typed
function (as ``autocue.agent.tool_from_function``); a parameter named ``ctx`` receives the
``ExtensionContext`` instead of a model argument. An ``AgentTool``'s own ``execute`` gets no
ctx: use ``api.ctx`` inside it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from autocue.agent.tool import AgentTool, tool_from_function
from autocue.casing import snake_keys
from autocue.extensions.events import EVENT_NAMES, CustomMessageSpec
from autocue.extensions.exec import ExecResult, run_exec
from autocue.extensions.extension import (
    NOT_INITIALIZED,
    CommandHandler,
    CommandInfo,
    Extension,
    ExtensionRuntimeError,
    Handler,
    RegisteredCommand,
    RegisteredFlag,
    normalize_handler,
)
from autocue.extensions.providers import build_provider
from autocue.llm.abort import AbortSignal
from autocue.llm.types import ImageContent, Model, TextContent

if TYPE_CHECKING:
    from autocue.extensions.context import ExtensionContext
    from autocue.extensions.host import SessionHost, ToolInfo
    from autocue.extensions.runner import ExtensionRunner

DeliverAs = Literal["steer", "follow_up", "next_turn"]


class EventBus:
    """A small pub/sub shared by all extensions of a session (``api.events``)."""

    def __init__(self) -> None:
        self._subs: dict[str, list[Callable[[Any], Any]]] = {}

    def on(self, name: str, fn: Callable[[Any], Any]) -> Callable[[], None]:
        self._subs.setdefault(name, []).append(fn)

        def off() -> None:
            lst = self._subs.get(name, [])
            if fn in lst:
                lst.remove(fn)

        return off

    def emit(self, name: str, data: Any = None) -> None:
        for fn in list(self._subs.get(name, ())):
            fn(data)


class ExtensionAPI:
    """Registration and actions for one extension."""

    def __init__(
        self,
        extension: Extension,
        runner: ExtensionRunner,
        *,
        cwd: str,
        flag_values: dict[str, Any] | None = None,
        events: EventBus | None = None,
    ) -> None:
        self.extension = extension
        self._runner = runner
        self._cwd = cwd
        self._flag_values = flag_values if flag_values is not None else {}
        self.events = events if events is not None else EventBus()

    # ------------------------------------------------------------------ registration
    @property
    def cwd(self) -> str:
        return self._cwd

    def _changed(self) -> None:
        if not self.extension.loading:
            self._runner.changed()

    def on(self, event: str, handler: Handler | None = None) -> Any:
        """Subscribe ``handler(event, ctx)`` (sync or async) to ``event``; usable as a decorator."""
        if event not in EVENT_NAMES:
            known = ", ".join(sorted(EVENT_NAMES))
            raise ValueError(
                f"extension {self.extension.name} ({self.extension.path}): unknown event {event!r}. "
                f"Known events: {known}"
            )

        def add(fn: Handler) -> Handler:
            if not callable(fn):
                raise TypeError(f"api.on({event!r}, ...): the handler must be callable, got {type(fn).__name__}")
            self.extension.handlers.setdefault(event, []).append(normalize_handler(fn))
            self._changed()
            return fn

        return add(handler) if handler is not None else add

    def register_tool(
        self,
        tool: AgentTool | Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        label: str | None = None,
    ) -> AgentTool:
        """Register an ``AgentTool`` or a typed function (see the module docstring). Works after startup."""
        if isinstance(tool, AgentTool):
            t = tool
        elif callable(tool):
            t = _function_tool(tool, self, name=name, description=description, label=label)
        else:
            raise TypeError(f"register_tool expects an AgentTool or a function, got {type(tool).__name__}")
        self.extension.tools[t.name] = t
        self._changed()
        return t

    def add_ttsr_rule(self, rule: Any = None, **fields: Any) -> None:
        """Add a TTSR rule: an ``autocue.session.TtsrRule``, or its fields (``name``, ``trigger``, ``text``,
        ``repeat_mode``, ``repeat_gap``, ``scope``). Works after startup too."""
        if rule is None:
            rule = dict(fields)
        elif fields:
            raise TypeError("add_ttsr_rule: give a TtsrRule or its fields as keywords, not both")
        self.extension.ttsr_rules.append(rule)
        self._changed()

    def register_command(
        self,
        name: str,
        handler: CommandHandler | Mapping[str, Any] | None = None,
        *,
        description: str | None = None,
        get_argument_completions: Callable[[str], Any] | None = None,
    ) -> Any:
        """Register ``/name``: ``handler(args, ctx)``; usable as a decorator.

        pi's form works too: ``register_command(name, {"description", "handler",
        "get_argument_completions"})`` (camelCase keys accepted)."""
        cname = name[1:] if name.startswith("/") else name
        if isinstance(handler, Mapping):
            spec = snake_keys(handler, ("get_argument_completions",))
            fn = spec.pop("handler", None)
            description = spec.pop("description", description)
            get_argument_completions = spec.pop("get_argument_completions", get_argument_completions)
            if not callable(fn) or spec:
                problem = f"unknown keys {sorted(spec)}" if spec else "'handler' must be a function"
                raise TypeError(f"register_command({cname!r}, {{...}}): {problem}; "
                                "give {'description', 'handler', 'get_argument_completions'}")
            command: CommandHandler | None = fn
        else:
            command = handler

        def add(fn: CommandHandler) -> CommandHandler:
            self.extension.commands[cname] = RegisteredCommand(
                cname, normalize_handler(fn), description, get_argument_completions, self.extension
            )
            return fn

        return add(command) if command is not None else add

    def register_shortcut(self, key: str, handler: Callable[..., Any], *, description: str | None = None) -> None:
        """Recorded for UIs that support key bindings (none of autocue's modes do)."""
        self.extension.shortcuts[key] = (handler, description)

    def register_message_renderer(self, custom_type: str, renderer: Callable[..., Any]) -> None:
        self.extension.message_renderers[custom_type] = renderer

    def register_flag(
        self,
        name: str,
        *,
        type: Literal["boolean", "string"] = "boolean",
        description: str | None = None,
        default: Any = None,
    ) -> None:
        """Declare a CLI flag ``--name``; read it with ``get_flag``."""
        self.extension.flags[name] = RegisteredFlag(name, type, description, default, self.extension)

    def register_provider(self, name: str, config: Mapping[str, Any]) -> list[Model]:
        """Bring a provider and its models (pi's ``{baseUrl, apiKey, api, headers, models, streamSimple}``;
        see ``extensions/providers.py``); returns its models, for ``set_model``. Works after startup too."""
        reg = build_provider(name, config)
        self.extension.providers[name] = reg
        self._changed()
        return list(reg.models)

    def unregister_provider(self, name: str) -> None:
        self.extension.providers.pop(name, None)
        self._changed()

    def get_flag(self, name: str) -> Any:
        """The flag's value given to the session (``flag_values``), else its default."""
        if name in self._flag_values:
            return self._flag_values[name]
        flag = self.extension.flags.get(name) or self._runner.flags().get(name)
        if flag is None:
            raise KeyError(f"flag {name!r} is not registered (register it with api.register_flag first)")
        return flag.default

    # ------------------------------------------------------------------ runtime
    def _session(self) -> SessionHost:
        session = self._runner.session if not self.extension.loading else None
        if session is None:
            raise ExtensionRuntimeError(NOT_INITIALIZED)
        return session

    @property
    def ctx(self) -> ExtensionContext:
        """The ``ExtensionContext`` handlers get (for use inside tools and background tasks)."""
        ctx = self._runner.ctx if not self.extension.loading else None
        if ctx is None:
            raise ExtensionRuntimeError(NOT_INITIALIZED)
        return ctx  # type: ignore[no-any-return]

    async def send_message(
        self,
        message: CustomMessageSpec | dict[str, Any],
        *,
        trigger_turn: bool = False,
        deliver_as: DeliverAs = "steer",
    ) -> None:
        """Add a ``custom`` message (in the model's context). While the agent runs it is queued as a
        steer or follow-up; ``next_turn`` holds it until the next prompt; when idle it is appended
        (and with ``trigger_turn`` a turn runs)."""
        await self._session().send_custom_message(message, trigger_turn=trigger_turn, deliver_as=deliver_as)

    async def send_user_message(
        self, content: str | list[TextContent | ImageContent], *, deliver_as: DeliverAs | None = None
    ) -> None:
        """Send a user message as if typed (no template expansion). While the agent runs this needs
        ``deliver_as`` (``steer`` or ``follow_up``)."""
        await self._session().send_user_message(content, deliver_as=deliver_as)

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Persist extension state as a ``custom`` entry (not sent to the model); returns its id."""
        return self._session().session_manager.append_custom_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._session().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._session().session_manager.get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._session().session_manager.append_label_change(entry_id, label)

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        return await run_exec(command, args, cwd=cwd or self._cwd, timeout=timeout, signal=signal)

    def get_active_tools(self) -> list[str]:
        return self._session().get_active_tool_names()

    def get_all_tools(self) -> list[ToolInfo]:
        return self._session().get_all_tools()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._session().set_active_tools(names)

    def get_commands(self) -> list[CommandInfo]:
        return self._session().get_commands()

    async def set_model(self, model: Model) -> bool:
        """Switch the session's model (fires ``model_select``); True when it was set."""
        await self._session().set_model(model)
        return True

    def get_thinking_level(self) -> str:
        return self._session().thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._session().set_thinking_level(level)


def _function_tool(
    fn: Callable[..., Any], api: ExtensionAPI, *, name: str | None, description: str | None, label: str | None
) -> AgentTool:
    """``tool_from_function`` where a ``ctx`` parameter receives ``api.ctx``."""
    sig = inspect.signature(fn)
    if "ctx" not in sig.parameters:
        return tool_from_function(fn, name=name, description=description, label=label)
    hints = inspect.get_annotations(fn, eval_str=True)
    is_async = inspect.iscoroutinefunction(fn)

    if is_async:
        async def wrapper(**kw: Any) -> Any:
            return await fn(**kw, ctx=api.ctx)
    else:
        def wrapper(**kw: Any) -> Any:  # type: ignore[misc]
            return fn(**kw, ctx=api.ctx)

    wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[p for n, p in sig.parameters.items() if n != "ctx"]
    )
    wrapper.__annotations__ = {k: v for k, v in hints.items() if k != "ctx"}
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    return tool_from_function(
        wrapper, name=name or fn.__name__, description=description, label=label
    )


__all__ = ["DeliverAs", "EventBus", "ExtensionAPI"]
