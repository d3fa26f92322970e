"""What the mock agent prints: ``text`` for a terminal, or the JSON line formats of agent CLIs.

- ``text``: thinking (dim), text, ``→ tool {args}``, ``✓ tool: result`` / ``✗ ...``,
  ``✎ path (+A -R)``, ``> `` when it waits for the user.
- ``pi-json`` (``pi --mode json``): a ``session`` header, then ``agent_start``, ``turn_start``,
  ``message_start``/``message_end`` (assistant messages with ``thinking``/``text``/``toolCall``
  blocks), ``tool_execution_start``/``tool_execution_end``, ``turn_end``, ``agent_end``.
- ``claude-stream-json`` (``claude -p --output-format stream-json``): ``system``/``init``, one
  ``assistant`` message per block, ``user`` messages carrying ``tool_result``s, and a final
  ``result``.
- ``codex-json`` (``codex exec --json``): ``thread.started``, ``turn.started``, ``item.started``
  / ``item.completed`` (``reasoning``, ``agent_message``, ``command_execution``,
  ``file_change``, ``mcp_tool_call``), ``turn.completed`` or ``turn.failed``.

Ids are derived from counters, so output is the same on every run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

FORMATS = ("text", "pi-json", "claude-stream-json", "codex-json")
DIM, RESET = "\x1b[2m", "\x1b[0m"


class Emitter:
    """The text format (and the interface of the JSON ones)."""

    def __init__(self, out: IO[str], name: str, cwd: Path) -> None:
        self.out = out
        self.name = name
        self.cwd = cwd
        self.n = 0

    def _w(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _next(self) -> int:
        self.n += 1
        return self.n

    def start(self, prompt: str | None) -> None:
        self._w(f"autocue mock-agent · {self.name}\n" + (f"> {prompt}\n" if prompt else ""))

    def reply_start(self) -> None:
        """A model reply begins (one ``llmResponse``)."""

    def reply_end(self) -> None:
        pass

    def user_turn_start(self) -> None:
        """The agent starts working on the user's prompt (at start, and after each user input)."""

    def user_turn_end(self) -> None:
        pass

    def thinking(self, text: str) -> None:
        self._w(f"{DIM}{text}{RESET}\n")

    def text(self, text: str) -> None:
        self._w(text + "\n")

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self._w(f"→ {name} {json.dumps(args, ensure_ascii=False)}\n")

    def tool_result(self, call_id: str, name: str, text: str, ok: bool) -> None:
        lines = text.splitlines() or [""]
        more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
        self._w(f"{'✓' if ok else '✗'} {name}: {lines[0][:200]}{more}\n")

    def edit(self, path: str, added: int, removed: int) -> None:
        self._w(f"✎ {path} (+{added} -{removed})\n")

    def error(self, message: str) -> None:
        self._w(f"✗ API error: {message}\n")

    def failure(self, message: str) -> None:
        self._w(f"✗ FAIL {message}\n")

    def waiting(self) -> None:
        self._w("> ")

    def user(self, line: str) -> None:
        pass

    def end(self, ok: bool, message: str) -> None:
        if not ok:
            self._w(f"mock-agent failed: {message}\n")


class _Json(Emitter):
    def emit(self, obj: dict[str, Any]) -> None:
        self._w(json.dumps(obj, ensure_ascii=False) + "\n")

    def waiting(self) -> None:
        pass

    def failure(self, message: str) -> None:
        import sys

        sys.stderr.write(f"mock-agent: {message}\n")
        sys.stderr.flush()


class PiJson(_Json):
    def start(self, prompt: str | None) -> None:
        self.content: list[dict[str, Any]] = []
        self.emit({"type": "session", "version": 3, "id": f"mock-{self.name}", "timestamp": 0,
                   "cwd": str(self.cwd)})
        self.emit({"type": "agent_start"})
        if prompt:
            self.user(prompt)

    def user(self, line: str) -> None:
        msg = {"role": "user", "content": [{"type": "text", "text": line}]}
        self.emit({"type": "message_start", "message": msg})
        self.emit({"type": "message_end", "message": msg})

    def reply_start(self) -> None:
        self.content = []
        self.emit({"type": "turn_start"})

    def _message(self) -> dict[str, Any]:
        return {"role": "assistant", "content": list(self.content), "provider": "mock", "model": "mock-agent",
                "stopReason": "toolUse" if any(b["type"] == "toolCall" for b in self.content) else "stop"}

    def _flush(self) -> None:
        if self.content:
            self.emit({"type": "message_start", "message": {**self._message(), "content": []}})
            self.emit({"type": "message_end", "message": self._message()})

    def thinking(self, text: str) -> None:
        self.content.append({"type": "thinking", "thinking": text})

    def text(self, text: str) -> None:
        self.content.append({"type": "text", "text": text})

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self.content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        self._flush()
        self.content = []
        self.emit({"type": "tool_execution_start", "toolCallId": call_id, "toolName": name, "args": args})

    def tool_result(self, call_id: str, name: str, text: str, ok: bool) -> None:
        result = {"content": [{"type": "text", "text": text}]}
        self.emit({"type": "tool_execution_end", "toolCallId": call_id, "toolName": name, "result": result,
                   "isError": not ok})
        msg = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": result["content"],
               "isError": not ok}
        self.emit({"type": "message_start", "message": msg})
        self.emit({"type": "message_end", "message": msg})

    def edit(self, path: str, added: int, removed: int) -> None:
        call_id = f"edit_{self._next()}"
        self.tool_call(call_id, "edit", {"path": path})
        self.tool_result(call_id, "edit", f"Successfully replaced text in {path}.", True)

    def error(self, message: str) -> None:
        self.content.append({"type": "text", "text": ""})
        self.emit({"type": "message_end", "message": {**self._message(), "stopReason": "error",
                                                      "errorMessage": message}})
        self.content = []

    def reply_end(self) -> None:
        self._flush()
        self.emit({"type": "turn_end"})

    def end(self, ok: bool, message: str) -> None:
        self.emit({"type": "agent_end"})


class ClaudeStreamJson(_Json):
    def start(self, prompt: str | None) -> None:
        self.session = f"mock-{self.name}"
        self.last_text = ""
        self.turns = 0
        self.emit({"type": "system", "subtype": "init", "cwd": str(self.cwd), "session_id": self.session,
                   "tools": ["Bash", "Read", "Write", "Edit"], "model": "mock-agent", "permissionMode": "default"})

    def _assistant(self, block: dict[str, Any]) -> None:
        self.emit({"type": "assistant", "message": {
            "id": f"msg_{self._next():04d}", "type": "message", "role": "assistant", "model": "mock-agent",
            "content": [block], "stop_reason": None, "usage": {"input_tokens": 0, "output_tokens": 0}},
            "parent_tool_use_id": None, "session_id": self.session})

    def reply_start(self) -> None:
        self.turns += 1

    def thinking(self, text: str) -> None:
        self._assistant({"type": "thinking", "thinking": text, "signature": ""})

    def text(self, text: str) -> None:
        self.last_text = text
        self._assistant({"type": "text", "text": text})

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self._assistant({"type": "tool_use", "id": call_id, "name": name, "input": args})

    def tool_result(self, call_id: str, name: str, text: str, ok: bool) -> None:
        self.emit({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": call_id, "type": "tool_result", "content": text, "is_error": not ok}]},
            "parent_tool_use_id": None, "session_id": self.session})

    def edit(self, path: str, added: int, removed: int) -> None:
        call_id = f"toolu_edit_{self._next()}"
        self.tool_call(call_id, "Edit", {"file_path": path})
        self.tool_result(call_id, "Edit", f"The file {path} has been updated.", True)

    def error(self, message: str) -> None:
        self.text(f"API Error: {message}")

    def end(self, ok: bool, message: str) -> None:
        self.emit({"type": "result", "subtype": "success" if ok else "error_during_execution", "is_error": not ok,
                   "duration_ms": 0, "num_turns": self.turns, "result": self.last_text if ok else message,
                   "session_id": self.session, "total_cost_usd": 0})


class CodexJson(_Json):
    def start(self, prompt: str | None) -> None:
        self.items: dict[str, dict[str, Any]] = {}
        self.emit({"type": "thread.started", "thread_id": f"mock-{self.name}"})

    def _item(self, item: dict[str, Any], *, started: bool = False) -> dict[str, Any]:
        item = {"id": f"item_{self._next()}", **item}
        self.emit({"type": "item.started" if started else "item.completed", "item": item})
        return item

    def user_turn_start(self) -> None:
        self.emit({"type": "turn.started"})

    def user_turn_end(self) -> None:
        self.emit({"type": "turn.completed", "usage": {"input_tokens": 0, "cached_input_tokens": 0,
                                                       "output_tokens": 0}})

    def thinking(self, text: str) -> None:
        self._item({"type": "reasoning", "text": text})

    def text(self, text: str) -> None:
        self._item({"type": "agent_message", "text": text})

    def tool_call(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        item: dict[str, Any]
        if name == "runCmd":
            item = {"type": "command_execution", "command": str(args.get("cmd", "")), "aggregated_output": "",
                    "exit_code": None, "status": "in_progress"}
        else:
            item = {"type": "mcp_tool_call", "server": "autocue", "tool": name, "arguments": args,
                    "status": "in_progress"}
        self.items[call_id] = self._item(item, started=True)

    def tool_result(self, call_id: str, name: str, text: str, ok: bool) -> None:
        item = dict(self.items.pop(call_id, {"id": f"item_{self._next()}", "type": "mcp_tool_call", "tool": name}))
        if item.get("type") == "command_execution":
            item.update(aggregated_output=text, exit_code=0 if ok else 1, status="completed" if ok else "failed")
        else:
            item.update(result={"content": [{"type": "text", "text": text}]}, status="completed" if ok else "failed")
        self.emit({"type": "item.completed", "item": item})

    def edit(self, path: str, added: int, removed: int) -> None:
        self._item({"type": "file_change", "changes": [{"path": path, "kind": "update"}], "status": "completed"})

    def error(self, message: str) -> None:
        self.emit({"type": "turn.failed", "error": {"message": message}})

    def end(self, ok: bool, message: str) -> None:
        if not ok:
            self.emit({"type": "error", "message": message})


def make_emitter(fmt: str, out: IO[str], name: str, cwd: Path) -> Emitter:
    kinds: dict[str, type[Emitter]] = {"text": Emitter, "pi-json": PiJson, "claude-stream-json": ClaudeStreamJson,
                                       "codex-json": CodexJson}
    if fmt not in kinds:
        raise ValueError(f"--format {fmt!r}: unknown (known: {', '.join(FORMATS)})")
    return kinds[fmt](out, name, cwd)
