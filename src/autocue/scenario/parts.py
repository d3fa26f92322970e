"""The scenario loader's reading of one model reply's parts: ``think`` / ``assistant`` timed
text (``[ms, text]`` pairs, ``{relativeTime, content}`` objects, rich content blocks),
``agentToolUse`` and tool-named events (``runCmd: {cmd: ...}``, with ``vocab``'s name and
argument aliases), ``agentEdits``, ``toolResult``, ``agentPlan`` and ``error`` steps.
"""

from __future__ import annotations

import json
from typing import Any

from autocue.scenario.reader import NodeReader, quote_hint
from autocue.scenario.timeline import (
    AgentEdits,
    AgentPlan,
    AssistantPart,
    ErrorStep,
    ResponsePart,
    ThinkPart,
    TimedText,
    ToolExecEvent,
    ToolExecution,
    ToolResultPart,
    ToolUse,
)
from autocue.scenario.vocab import (
    ARG_ALIASES,
    ERROR_TYPE_STATUS,
    REQUIRED_ARGS,
    RESPONSE_PART_KINDS,
    TOOL_EVENTS,
    canonical_tool_name,
)
from autocue.scenario.yamlsrc import Node, plain, type_name

PART_SET = frozenset(RESPONSE_PART_KINDS)
_TOOL_SET = frozenset(TOOL_EVENTS)
_EXEC_TYPES = ("stdout", "stderr", "progress", "completion")
_TIMED_FORMS = "a list of [ms, text] pairs or {relativeTime, content} objects"


class PartReader(NodeReader):
    """Reads response parts (the elements of an ``llmResponse``)."""

    # ------------------------------------------------------------------ response parts
    def part(self, el: Node) -> ResponsePart:
        if not el.is_map:
            self.fail(el, f"a response element must be a mapping like `- think: [...]`, got {type_name(el.v)}")
        if not el.v:
            self.fail(el, "empty response element: write one element per list item, e.g. `- assistant: [[0, \"hi\"]]`")
        if "type" in el:
            kind = self.str_(el.key("type"), "a response element type")
            if kind not in PART_SET:
                known = ", ".join(RESPONSE_PART_KINDS[:7])
                self.fail(el.key("type"), f"unknown response element type {kind!r} (known: {known}, "
                          "or a tool name)")
            if kind in el:
                return self.part_value(kind, el.key(kind))
            return self.tagged_part(kind, el)
        kinds = [k for k in el.key_names() if k in PART_SET]
        if len(kinds) > 1:
            self.fail(el, "one element per list item: found " + " and ".join(kinds) + "; put each in its own `- ` item")
        if not kinds:
            self.fail(el, f"unknown response element {str(el.key_names()[0])!r} (known: "
                      f"{', '.join(RESPONSE_PART_KINDS[:7])}, or a tool name such as runCmd)")
        for k in el.key_names():
            if k not in (kinds[0], "_meta"):
                self.warn(el.key_pos(k), el.key_path(k), f"unknown key {k!r} next to {kinds[0]} is ignored")
        return self.part_value(kinds[0], el.key(kinds[0]))

    def part_value(self, kind: str, v: Node) -> ResponsePart:
        if kind == "think":
            return ThinkPart(self.timed_list(v, "content", "text"), v.pos)
        if kind == "assistant":
            return AssistantPart(self.timed_list(v, "content", "text"), v.pos)
        if kind == "agentToolUse":
            return self.tool_use(v)
        if kind in _TOOL_SET:
            return self.tool_named(kind, v)
        if kind == "agentEdits":
            self.map_(v, "{path, linesAdded, linesRemoved}")
            self.unknown_keys(v, ("path", "linesAdded", "linesRemoved", "type"), "agentEdits")
            return AgentEdits(
                self.str_(self.require(v, "path", what="the edited file")),
                self.int_(v.key("linesAdded")) if "linesAdded" in v else 0,
                self.int_(v.key("linesRemoved")) if "linesRemoved" in v else 0,
                v.pos,
            )
        if kind == "toolResult":
            self.map_(v, "{toolCallId, content, isError}", ("toolCallId", "content", "isError", "type"), "toolResult")
            err = v.get("isError")
            return ToolResultPart(self.opt_str(v, "toolCallId"), plain(v.v.get("content")),
                                  self.bool_(err) if err is not None else False, v.pos)
        if kind == "error":
            return self.error_step(v)
        if kind == "agentPlan":
            self.map_(v, "{entries: [...]}")
            entries = v.get("entries")
            return AgentPlan(plain(self.seq(entries).v) if entries is not None else [], v.pos)
        raise AssertionError(kind)  # pragma: no cover

    def tagged_part(self, kind: str, el: Node) -> ResponsePart:
        """``{type: think|assistant, text: ..., ms: ...}`` or a mapping-valued part with ``type``."""
        if kind in ("think", "assistant"):
            steps = el.get("steps")
            if steps is not None:
                self.unknown_keys(el, ("type", "steps"), f"a {kind} element")
                texts = self.timed_list(steps, "content", "text")
            else:
                self.unknown_keys(el, ("type", "text", "content", "ms", "relativeTime", "timestamp"),
                                  f"a {kind} element")
                body = self.require(el, "text", "content", what=f"the {kind} text")
                t = el.get("ms", "relativeTime", "timestamp")
                text, block = self.text_or_block(body)
                texts = [TimedText(self.int_(t, "milliseconds") if t is not None else 0, text, el.pos, block)]
            return ThinkPart(texts, el.pos) if kind == "think" else AssistantPart(texts, el.pos)
        return self.part_value(kind, el.without("type"))

    # ------------------------------------------------------------------ timed text
    def timed_list(self, n: Node, *text_keys: str, extra_keys: tuple[str, ...] = ()) -> list[TimedText]:
        if not n.is_seq:
            self.fail(n, f"expected {_TIMED_FORMS}, got {type_name(n.v)}" + _timed_hint(n.v))
        return [self.timed(s, text_keys, extra_keys) for s in n.items()]

    def timed(self, s: Node, text_keys: tuple[str, ...], extra_keys: tuple[str, ...] = ()) -> TimedText:
        if s.is_seq:
            if len(s.v) != 2:
                self.fail(s, f"a timed step is [ms, text] (2 items), got {len(s.v)} item(s)")
            ms_n, text_n = list(s.items())
            text, block = self.text_or_block(text_n)
            return TimedText(self.int_(ms_n, "milliseconds (the first item of [ms, text])"), text, s.pos, block)
        if s.is_map:
            self.unknown_keys(s, ("relativeTime", "timestamp", "ms", *text_keys, *extra_keys), "a timed step")
            t = s.get("relativeTime", "timestamp", "ms")
            body = s.get(*text_keys)
            if body is None:
                self.fail(s, f"missing {' or '.join(text_keys)}: the step's text")
            text, block = self.text_or_block(body)
            ms = self.int_(t, "milliseconds") if t is not None else 0
            return TimedText(ms, text, s.pos, block)
        self.fail(s, f"a timed step is [ms, text] or {{relativeTime, content}}, got {type_name(s.v)}"
                  + (f": write [0, {json.dumps(str(s.v))}]" if isinstance(s.v, str) else ""))

    def text_or_block(self, n: Node) -> tuple[str, dict[str, Any] | None]:
        if isinstance(n.v, str):
            return str(n.v), None
        if n.is_map:
            block = plain(n.v)
            btype = block.get("type")
            if not isinstance(btype, str):
                self.fail(n, "a rich content block needs a `type` (text, image, diff, resource, ...)")
            if btype == "text":
                if not isinstance(block.get("text"), str):
                    self.fail(n, "a text block needs `text: ...`")
                return block["text"], block
            self.warn(n.pos, n.path, f"rich content block of type {btype!r} is kept in the model but sends no text "
                      "to the model reply")
            return "", block
        self.fail(n, f"expected text (a string) or a rich content block, got {type_name(n.v)}" + quote_hint(n.v))

    # ------------------------------------------------------------------ tools
    def tool_use(self, v: Node) -> ToolUse:
        self.map_(v, "{toolName, args, ...}")
        self.unknown_keys(v, ("toolName", "args", "toolCallId", "progress", "result", "status", "toolExecution",
                              "meta", "_meta", "type"), "agentToolUse")
        name_n = self.require(v, "toolName", what="the tool to call (runCmd, readFile, writeFile, ...)")
        written = self.str_(name_n, "a tool name")
        if not written:
            self.fail(name_n, "the tool name must not be empty")
        name = canonical_tool_name(written)
        args_n = v.get("args")
        if args_n is None or args_n.v is None:
            args: dict[str, Any] = {}
        else:
            args = plain(self.map_(args_n, "the tool arguments (a mapping)").v)
        args = self.canonical_args(name, args, args_n or v)
        tu = ToolUse(name, args, v.pos, tool_call_id=self.opt_str(v, "toolCallId"))
        if (p := v.get("progress")) is not None and p.v is not None:
            tu.progress = self.timed_list(p, "message", "text", "content", extra_keys=("expectOutput",))
        if "result" in v:
            tu.result = plain(v.v["result"])
        tu.status = self.opt_str(v, "status")
        if (x := v.get("toolExecution")) is not None and x.v is not None:
            tu.tool_execution = self.tool_execution(x)
        if (x := v.get("meta", "_meta")) is not None and x.v is not None:
            tu.meta = plain(self.map_(x).v)
        return tu

    def tool_named(self, kind: str, v: Node) -> ToolUse:
        if v.v is None:
            raw: dict[str, Any] = {}
        else:
            raw = plain(self.map_(v, f"the {kind} arguments (a mapping)").v)
        call_id = raw.pop("toolCallId", None)
        if isinstance(raw.get("args"), dict) and all(k == "args" for k in raw):
            raw = raw["args"]
        if call_id is not None and not isinstance(call_id, str):
            self.fail(v.key("toolCallId"), "toolCallId must be a string")
        args = self.canonical_args(kind, raw, v)
        return ToolUse(kind, args, v.pos, tool_call_id=call_id, written_as=kind)

    def canonical_args(self, tool: str, args: dict[str, Any], where: Node) -> dict[str, Any]:
        aliases = ARG_ALIASES.get(tool)
        if aliases:
            for alias, canon in aliases.items():
                if alias in args:
                    if canon in args:
                        self.warn(where.pos, where.path, f"{tool} has both {alias!r} and {canon!r}; using {canon!r}")
                        del args[alias]
                    else:
                        args = {(canon if k == alias else k): v for k, v in args.items()}
        for req in REQUIRED_ARGS.get(tool, ()):
            if req not in args:
                alts = [a for a, c in (aliases or {}).items() if c == req]
                also = f" (or {', '.join(alts)})" if alts else ""
                self.fail(where, f"{tool} needs {req!r}{also}")
            if req != "todos" and not isinstance(args[req], str):
                self.fail(where, f"{tool}.{req} must be a string, got {type_name(args[req])}")
        return args

    def tool_execution(self, x: Node) -> ToolExecution:
        self.map_(x, "{startTimeMs, events}", ("startTimeMs", "events"), "toolExecution")
        start = self.int_(x.key("startTimeMs")) if "startTimeMs" in x else 0
        events: list[ToolExecEvent] = []
        if (ev := x.get("events")) is not None and ev.v is not None:
            for e in self.seq(ev, "a list of {type, timeMs, content, exitCode}").items():
                self.map_(e, "{type, timeMs, content, exitCode}")
                self.unknown_keys(e, ("type", "timeMs", "content", "exitCode"), "a toolExecution event")
                t_n = self.require(e, "type", what="stdout, stderr, progress or completion")
                t = self.str_(t_n)
                if t not in _EXEC_TYPES:
                    self.fail(t_n, f"toolExecution event type must be one of {', '.join(_EXEC_TYPES)}, got {t!r}")
                events.append(ToolExecEvent(
                    t,  # type: ignore[arg-type]
                    self.int_(e.key("timeMs")) if "timeMs" in e else 0,
                    self.opt_str(e, "content"),
                    self.int_(e.key("exitCode"), minimum=None) if "exitCode" in e else None,
                ))
        return ToolExecution(start, events)

    # ------------------------------------------------------------------ errors
    def error_step(self, v: Node) -> ErrorStep:
        self.map_(v, "{statusCode, errorType, message, body, retryAfterSeconds}")
        self.unknown_keys(v, ("statusCode", "status", "errorType", "type", "message", "body", "details",
                              "retryAfterSeconds", "retryAfter"), "error")
        etype = self.opt_str(v, "errorType", "type")
        body: dict[str, Any] | None = None
        if (b := v.get("body")) is not None and b.v is not None:
            if b.is_map:
                body = plain(b.v)
            elif isinstance(b.v, str):
                try:
                    parsed = json.loads(str(b.v))
                except ValueError:
                    parsed = None
                if not isinstance(parsed, dict):
                    self.fail(b, "the error body must be a mapping (the JSON error body) or a JSON object string")
                body = parsed
            else:
                self.fail(b, f"the error body must be a mapping, got {type_name(b.v)}")
        if (s := v.get("statusCode", "status")) is not None:
            status = self.int_(s, "an HTTP status code")
            if not 100 <= status <= 599:
                self.fail(s, f"an HTTP status code is 100..599, got {status}")
        else:
            status = ERROR_TYPE_STATUS.get(etype or "", 400)
        message = self.opt_str(v, "message")
        if message is None:
            inner = body.get("error") if body else None
            if isinstance(inner, dict) and isinstance(inner.get("message"), str):
                message = inner["message"]
            else:
                message = etype or f"scripted error {status}"
        retry: float | None = None
        if (r := v.get("retryAfterSeconds", "retryAfter")) is not None and r.v is not None:
            retry = self.num(r, "seconds")
        details = plain(v.v["details"]) if "details" in v else None
        return ErrorStep(status, message, v.pos, etype, body, retry, details)


def _timed_hint(v: Any) -> str:
    if isinstance(v, str):
        return f": write `- [0, {json.dumps(v)}]` (one item per step)"
    return ""
