"""``AgentTool``: a tool the agent can run, and helpers to declare one.

A tool has a name, label, description and JSON-Schema ``parameters``; ``execute`` receives
the validated arguments, an abort signal and an ``on_update`` callback for partial results,
and returns a ``ToolResult``. Errors are signalled by raising: the agent turns the exception
into an error tool result for the model. A returned result never sets the error flag.

Declare tools by subclassing, by passing an ``execute`` callable, from a typed function
(``@tool`` / ``tool_from_function``) or from a pydantic model (``tool_from_model``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from autocue.agent.errors import ToolArgumentsError as ToolArgumentsError
from autocue.agent.validation import compile_validator, fast_validator
from autocue.llm.abort import AbortSignal
from autocue.llm.types import JSON, ImageContent, TextContent, Tool, UserContent, content_from_json

if TYPE_CHECKING:
    from pydantic import BaseModel


@dataclass(slots=True)
class ToolResult:
    """What a tool returns: content for the model and optional structured ``details``."""

    content: list[UserContent] = field(default_factory=list)
    details: Any = None

    @staticmethod
    def text(text: str, details: Any = None) -> ToolResult:
        return ToolResult([TextContent(text)], details)

    @property
    def text_content(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))

    def to_json(self) -> JSON:
        return {"content": [b.to_json() for b in self.content], "details": {} if self.details is None else self.details}


OnUpdate: TypeAlias = Callable[[ToolResult], None]
ExecuteFn: TypeAlias = Callable[[str, dict[str, Any], AbortSignal, OnUpdate], "Awaitable[Any] | Any"]
ExecutionMode: TypeAlias = Literal["parallel", "exclusive"]


class AgentTool:
    """A tool the agent can call.

    ``execution_mode="exclusive"`` makes the tool run alone: calls before it finish first and
    calls after it wait. Override ``execute`` in a subclass or pass ``execute=``.
    """

    def __init__(
        self,
        name: str,
        description: str = "",
        parameters: JSON | None = None,
        execute: ExecuteFn | None = None,
        *,
        label: str | None = None,
        execution_mode: ExecutionMode = "parallel",
        validate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.name = name
        self.label = label or name
        self.description = description
        self.parameters: JSON = parameters if parameters is not None else {"type": "object", "properties": {}}
        self.execution_mode: ExecutionMode = execution_mode
        self._execute = execute
        self._custom_validate = validate
        self._validator: Callable[[Any], list[str]] | None = None
        self._fast_check: Callable[[Any], bool] | None = None
        self._spec: Tool | None = None

    @property
    def spec(self) -> Tool:
        """What the model is told about this tool."""
        if self._spec is None:
            self._spec = Tool(self.name, self.description, self.parameters)
        return self._spec

    def validate(self, args: Any) -> dict[str, Any]:
        """Return the arguments to execute with, or raise ``ToolArgumentsError``."""
        if self._custom_validate is not None:
            if not isinstance(args, dict):
                raise ToolArgumentsError(f"arguments: must be object, got {type(args).__name__}")
            return self._custom_validate(args)
        if self._validator is None:
            self._fast_check = fast_validator(self.parameters)
            self._validator = compile_validator(self.parameters)
        fast = self._fast_check
        if fast is not None and fast(args):
            return args  # type: ignore[no-any-return]
        errors = self._validator(args)
        if errors:
            raise ToolArgumentsError("\n".join(f"  - {e}" for e in errors))
        return args  # type: ignore[no-any-return]

    def start(self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate) -> Any:
        """Begin a call without a coroutine of its own (the agent loop's path): whatever the tool
        function returned, which may be a ``ToolResult``, a value for ``to_tool_result``, or an
        awaitable of either. A subclass that overrides ``execute`` is called through it."""
        fn = self._execute
        if fn is None or type(self).execute is not AgentTool.execute:
            return self.execute(tool_call_id, params, signal, on_update)
        return fn(tool_call_id, params, signal, on_update)

    async def execute(
        self, tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        if self._execute is None:
            raise NotImplementedError(f"tool {self.name!r} has no execute function")
        out = self._execute(tool_call_id, params, signal, on_update)
        if hasattr(out, "__await__"):
            out = await out
        return out if type(out) is ToolResult else to_tool_result(out)

    def __repr__(self) -> str:
        return f"<AgentTool {self.name}>"


def to_tool_result(value: Any) -> ToolResult:
    """Coerce what a tool function returned: ``ToolResult``, str, result dict, or any JSON value."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult([TextContent(value)])
    if value is None:
        return ToolResult([])
    if isinstance(value, dict) and "content" in value and isinstance(value["content"], list):
        blocks: list[UserContent] = []
        for b in value["content"]:
            blk = b if isinstance(b, (TextContent, ImageContent)) else content_from_json(b)
            if not isinstance(blk, (TextContent, ImageContent)):
                raise TypeError("tool result content may hold only text and image blocks")
            blocks.append(blk)
        return ToolResult(blocks, value.get("details"))
    return ToolResult([TextContent(json.dumps(value, ensure_ascii=False, default=str))])


# ---------------------------------------------------------------------------- declaring tools

_CONTEXT_PARAMS = frozenset({"signal", "on_update", "tool_call_id"})


def tool_from_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    label: str | None = None,
    execution_mode: ExecutionMode = "parallel",
) -> AgentTool:
    """Declare a tool from a typed function; parameters come from its signature.

    The function is called with the arguments as keywords. Parameters named ``signal``,
    ``on_update`` or ``tool_call_id`` receive those values instead of model arguments.
    It may be sync or async and return a str, a ``ToolResult``, a result dict or JSON data.
    """
    from pydantic import ConfigDict, create_model

    sig = inspect.signature(fn)
    hints = inspect.get_annotations(fn, eval_str=True)
    fields: dict[str, Any] = {}
    wants: set[str] = set()
    for pname, p in sig.parameters.items():
        if pname in _CONTEXT_PARAMS:
            wants.add(pname)
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"tool function {fn.__name__}: *args/**kwargs cannot be tool parameters")
        ann = hints.get(pname, Any)
        fields[pname] = (ann, ... if p.default is p.empty else p.default)
    model = create_model(f"{fn.__name__}_params", __config__=ConfigDict(extra="forbid"), **fields)
    return _model_tool(
        model,
        fn,
        name=name or fn.__name__,
        description=description if description is not None else inspect.getdoc(fn) or "",
        label=label,
        execution_mode=execution_mode,
        wants=wants,
        spread=True,
    )


def tool_from_model(
    params_model: type[BaseModel],
    fn: Callable[..., Any],
    *,
    name: str,
    description: str = "",
    label: str | None = None,
    execution_mode: ExecutionMode = "parallel",
) -> AgentTool:
    """Declare a tool whose arguments are a pydantic model; ``fn(params, ...)`` gets the instance."""
    wants = {p for p in inspect.signature(fn).parameters if p in _CONTEXT_PARAMS}
    return _model_tool(
        params_model, fn, name=name, description=description, label=label,
        execution_mode=execution_mode, wants=wants, spread=False,
    )


def _model_tool(
    params_model: type[BaseModel],
    fn: Callable[..., Any],
    *,
    name: str,
    description: str,
    label: str | None,
    execution_mode: ExecutionMode,
    wants: set[str],
    spread: bool,
) -> AgentTool:
    from pydantic import ValidationError

    schema = params_model.model_json_schema()
    schema.pop("title", None)

    def validate(args: dict[str, Any]) -> dict[str, Any]:
        try:
            params_model.model_validate(args)
        except ValidationError as e:
            lines = []
            for err in e.errors():
                loc = ".".join(str(x) for x in err["loc"]) or "arguments"
                lines.append(f"  - {loc}: {err['msg']}")
            raise ToolArgumentsError("\n".join(lines)) from None
        return args

    async def execute(tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate) -> Any:
        given = {"signal": signal, "on_update": on_update, "tool_call_id": tool_call_id}
        extra = {k: v for k, v in given.items() if k in wants}
        inst = params_model.model_validate(params)
        out = fn(**{k: getattr(inst, k) for k in type(inst).model_fields}, **extra) if spread else fn(inst, **extra)
        if inspect.isawaitable(out):
            out = await out
        return out

    return AgentTool(
        name, description, schema, execute, label=label, execution_mode=execution_mode, validate=validate
    )


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    execution_mode: ExecutionMode = "parallel",
) -> Any:
    """Decorator form of ``tool_from_function``: ``@tool`` or ``@tool(name="x")``."""

    def wrap(f: Callable[..., Any]) -> AgentTool:
        return tool_from_function(f, name=name, description=description, execution_mode=execution_mode)

    return wrap(fn) if fn is not None else wrap
