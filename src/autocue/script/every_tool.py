"""Replies built from what the request declares: "call every declared tool once with schema-valid
arguments, then answer" (``call_every_tool``, the scenario's ``callEveryTool``) and "answer with a value
of the declared response schema" (``structured_output``, the scenario's ``structuredOutput``).

Both are response factories: they read the ``Context`` a request carries (its tools, its
``response_schema``) when the reply is due, so one scenario serves any agent and any dialect. Values
come from ``schema_values.schema_value``, seeded by the step's ``seed`` and the tool's name: the same
seed gives the same arguments on every run. A schema no value satisfies raises ``ValueError`` naming the
tool and where the step was written; the mock server answers it as the dialect's error, the in-process
provider as an error reply.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autocue.llm.types import AssistantMessage, Context, TextContent, Tool, ToolCall, UserMessage
from autocue.script.model import ScriptedResponse, ScriptedToolCall, Step
from autocue.script.schema_values import SchemaValueError, json_schema, schema_value

if TYPE_CHECKING:
    from autocue.yamlpos import Pos

_NO_VALUE = object()


def _where(pos: Pos | None) -> str:
    return f" (at {pos.short})" if pos is not None else ""


def _calls_this_turn(ctx: Context) -> list[str]:
    """Names of the tools called since the last user prompt, in order."""
    names: list[str] = []
    for m in ctx.messages:
        if isinstance(m, UserMessage):
            names = []
        elif isinstance(m, AssistantMessage):
            names.extend(b.name for b in m.content if isinstance(b, ToolCall))
    return names


@dataclass(slots=True)
class _Calls:
    """The reply that calls the declared tools: all at once, or (``parallel=False``) the next one not
    yet called this turn, playing again until every tool was called."""

    seed: int | str
    parallel: bool
    output_tool: str | None
    only: tuple[str, ...] | None
    pos: Pos | None

    @property
    def label(self) -> str:
        return f"callEveryTool(seed={self.seed!r}{', parallel=False' if not self.parallel else ''})"

    def __call__(self, ctx: Context) -> ScriptedResponse:
        tools = [t for t in ctx.tools if t.name and t.name != self.output_tool]
        if self.only is not None:
            absent = [n for n in self.only if n not in {t.name for t in tools}]
            if absent:
                raise ValueError(f"callEveryTool{_where(self.pos)}: the request does not declare "
                                 f"{', '.join(absent)} (declared: {', '.join(t.name for t in tools) or 'no tools'})")
            tools = [t for t in tools if t.name in self.only]
        if not tools:
            raise ValueError(f"callEveryTool{_where(self.pos)}: the request declares no tools to call")
        if not self.parallel:
            done = set(_calls_this_turn(ctx))
            left = [t for t in tools if t.name not in done]
            if not left:
                raise ValueError(f"callEveryTool{_where(self.pos)}: every declared tool was called already")
            tools = left[:1]
            again = len(left) > 1
        else:
            again = False
        calls: list[Any] = [_call(t, self.seed, self.pos) for t in tools]
        return ScriptedResponse(calls, pos=self.pos, again=again)


def _call(t: Tool, seed: int | str, pos: Pos | None) -> ScriptedToolCall:
    """A call of ``t`` with arguments drawn from its schema (seeded by ``seed`` and its name)."""
    try:
        args = schema_value(t.parameters or {"type": "object"}, f"{seed}:{t.name}")
    except SchemaValueError as e:
        raise ValueError(f"callEveryTool{_where(pos)}: cannot make arguments for the tool {t.name!r}: {e}") from None
    if not isinstance(args, dict):
        raise ValueError(f"callEveryTool{_where(pos)}: the tool {t.name!r} takes {type(args).__name__} arguments, "
                         "not an object")
    return ScriptedToolCall(t.name, args)


@dataclass(slots=True)
class _Answer:
    """The answer after the tool results: ``then``; else a value of the request's response schema when it
    declares one, or a line naming the tools called."""

    seed: int | str
    then: str | None
    output_tool: str | None
    pos: Pos | None

    @property
    def label(self) -> str:
        if self.output_tool is not None:
            return f"callEveryTool.then(call({self.output_tool!r}))"
        return f"callEveryTool.then({self.then!r})" if self.then is not None else "callEveryTool.then()"

    def __call__(self, ctx: Context) -> ScriptedResponse:
        if self.output_tool is not None:
            tool = next((t for t in ctx.tools if t.name == self.output_tool), None)
            if tool is None:
                raise ValueError(f"callEveryTool{_where(self.pos)}: the output tool {self.output_tool!r} is not "
                                 f"declared (declared: {', '.join(t.name for t in ctx.tools) or 'no tools'})")
            return ScriptedResponse([_call(tool, self.seed, self.pos)], pos=self.pos)
        if self.then is not None:
            return ScriptedResponse([TextContent(self.then)], pos=self.pos)
        if ctx.response_schema is not None:  # the agent wants structured output: a value of its schema
            return _Structured(self.seed, _NO_VALUE, self.pos)(ctx)
        names = list(dict.fromkeys(_calls_this_turn(ctx))) or [t.name for t in ctx.tools]
        return ScriptedResponse([TextContent("Called every tool: " + ", ".join(names) + ".")], pos=self.pos)


def call_every_tool(seed: int | str = 0, then: str | None = None, *, parallel: bool = True,
                    output_tool: str | None = None, tools: Sequence[str] | None = None,
                    pos: Pos | None = None) -> list[Step]:
    """The two steps of "call every declared tool once, then answer": the calls (each tool's
    arguments drawn from its JSON Schema with ``seed``; all in one reply, or one reply per tool with
    ``parallel=False``) and the answer after the results: a call of ``output_tool`` when given (an
    agent's output tool, such as pydantic-ai's ``final_result``: left out of the calls), else ``then``,
    else a value of the request's response schema when it declares one, else a line naming the tools.
    ``tools`` names the tools to call (pydantic-ai ``TestModel``'s ``call_tools``; default: every one)."""
    only = tuple(tools) if tools is not None else None
    return [_Calls(seed, parallel, output_tool, only, pos), _Answer(seed, then, output_tool, pos)]


@dataclass(slots=True)
class _Structured:
    seed: int | str
    value: Any
    pos: Pos | None

    @property
    def label(self) -> str:
        return "structuredOutput(value=...)" if self.value is not _NO_VALUE else f"structuredOutput(seed={self.seed!r})"

    def __call__(self, ctx: Context) -> ScriptedResponse:
        schema = ctx.response_schema
        if schema is None:
            raise ValueError(f"structuredOutput{_where(self.pos)}: the request declares no response schema "
                             "(response_format, text.format, output_config.format, responseSchema, format)")
        if self.value is _NO_VALUE:
            try:
                value = schema_value(schema, self.seed)
            except SchemaValueError as e:
                raise ValueError(f"structuredOutput{_where(self.pos)}: {e}") from None
        else:
            value = self.value
            problem = schema_problem(schema, value)
            if problem is not None:
                raise ValueError(f"structuredOutput{_where(self.pos)}: the scripted value does not satisfy the "
                                 f"request's response schema: {problem}")
        return ScriptedResponse([TextContent(json.dumps(value, ensure_ascii=False))], pos=self.pos)


def structured_output(seed: int | str = 0, *, value: Any = _NO_VALUE, pos: Pos | None = None) -> Step:
    """A reply whose text is JSON satisfying the response schema the request declares: ``value`` (checked
    against the schema) or a value drawn from the schema with ``seed``."""
    return _Structured(seed, value, pos)


def schema_problem(schema: Any, value: Any) -> str | None:
    """Why ``value`` does not satisfy ``schema`` (the best ``jsonschema`` error), or None."""
    from jsonschema import FormatChecker
    from jsonschema.exceptions import best_match
    from jsonschema.validators import Draft202012Validator, validator_for

    checked = json_schema(schema)
    error = best_match(validator_for(checked, default=Draft202012Validator)(
        checked, format_checker=FormatChecker()).iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return str(error.message) + (f" at /{where}" if where else "")


__all__ = ["call_every_tool", "schema_problem", "structured_output"]
