"""RPC mode (``autocue --mode rpc``): a JSONL protocol on stdin/stdout, as pi's RPC mode.

Framing: one JSON object per line, split on ``\\n`` only (a trailing ``\\r`` is tolerated).
Every command may carry an ``id`` echoed in its response
``{"id"?, "type":"response", "command", "success": true, "data"?}`` or
``{..., "success": false, "error"}``; a line that is not JSON gets ``command: "parse"``.

Commands: ``prompt{message, images?, streamingBehavior?}`` (answered at once; the run's
events follow, a later failure comes as an error response), ``steer{message}``,
``follow_up{message}``, ``abort``, ``new_session{parentSession?}`` → ``{cancelled}``, ``get_state``,
``get_messages``, ``set_model{provider, modelId}``, ``cycle_model``,
``get_available_models``, ``set_thinking_level{level}``, ``cycle_thinking_level``,
``set_steering_mode{mode}``, ``set_follow_up_mode{mode}``, ``compact{customInstructions?}``,
``set_auto_compaction{enabled}``, ``set_auto_retry{enabled}``, ``abort_retry``,
``bash{command}`` → ``{output, exitCode, cancelled, truncated, fullOutputPath?}`` (run by the bash
tool's runner), ``abort_bash``, ``get_session_stats``, ``get_last_assistant_text``,
``set_session_name{name}``, ``get_commands``, ``export_html{outputPath?}`` → ``{path}`` (the
``autocue view`` page of the session), ``switch_session{sessionPath}`` → ``{cancelled}``,
``fork{entryId}`` → ``{text, cancelled}``, ``get_fork_messages`` → ``{messages: [{entryId, text}]}``.

Events: every session event as a JSON line. Extension dialogs use the UI sub-protocol of
``rpc_ui.RpcUI`` (``extension_ui_request`` out, ``extension_ui_response`` in). When stdin
closes, the mode waits for the running prompt, disposes the session and returns 0.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import IO, Any

import orjson

from autocue.llm.abort import AbortController
from autocue.llm.registry import ModelRegistry
from autocue.llm.stream import THINKING_LEVELS
from autocue.llm.types import ImageContent
from autocue.modes.common import event_json, model_json, write_json_line
from autocue.modes.errors import RpcCommandError as RpcCommandError
from autocue.modes.rpc_ui import RpcUI
from autocue.session.agent_session import AgentSession, StreamingBehavior
from autocue.session.messages import BashExecutionMessage

_EOF = object()
_STREAMING_BEHAVIORS: dict[str, StreamingBehavior] = {
    "steer": "steer", "followUp": "follow_up", "follow_up": "follow_up",
}


class RpcServer:
    def __init__(self, session: AgentSession, registry: ModelRegistry, ui: RpcUI | None, stdout: IO[bytes]) -> None:
        self.session = session
        self.registry = registry
        self.ui = ui
        self.stdout = stdout
        self.tasks: set[asyncio.Task[Any]] = set()
        self.bash_abort: AbortController | None = None  # the running bash command's

    def send(self, obj: Any) -> None:
        write_json_line(self.stdout, obj)

    def respond(self, cmd: str, rid: Any, data: Any = None, error: str | None = None) -> None:
        r: dict[str, Any] = {}
        if rid is not None:
            r["id"] = rid
        r.update({"type": "response", "command": cmd, "success": error is None})
        if error is not None:
            r["error"] = error
        elif data is not None:
            r["data"] = data
        self.send(r)

    def on_event(self, ev: Any) -> None:
        self.send(event_json(ev))

    # ------------------------------------------------------------------ dispatch
    async def handle_line(self, raw: bytes) -> None:
        line = raw.rstrip(b"\n").rstrip(b"\r")
        if not line.strip():
            return
        try:
            msg = orjson.loads(line)
            if not isinstance(msg, dict):
                raise ValueError("a command must be a JSON object")
        except (orjson.JSONDecodeError, ValueError) as e:
            self.respond("parse", None, error=f"Failed to parse command: {e}")
            return
        t = msg.get("type")
        if t == "extension_ui_response":
            if self.ui is not None:
                self.ui.resolve(msg)
            return
        rid = msg.get("id")
        if not isinstance(t, str):
            self.respond("parse", rid, error="command has no 'type'")
            return
        handler: Callable[[dict[str, Any]], Any] | None = getattr(self, "cmd_" + t, None)
        if handler is None:
            self.respond(t, rid, error=f"Unknown command: {t}")
            return
        try:
            data = await handler(msg)
        except RpcCommandError as e:
            self.respond(t, rid, error=str(e))
            return
        except Exception as e:  # a command must never kill the server
            self.respond(t, rid, error=f"{type(e).__name__}: {e}")
            return
        if data is not _NO_RESPONSE:
            self.respond(t, rid, data)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # ------------------------------------------------------------------ prompting
    async def cmd_prompt(self, msg: dict[str, Any]) -> Any:
        text = _text(msg, "message")
        images = _images(msg.get("images"))
        behavior = msg.get("streamingBehavior")
        sb = _STREAMING_BEHAVIORS.get(behavior or "")
        if behavior is not None and sb is None:
            raise RpcCommandError(f"streamingBehavior must be 'steer' or 'followUp', got {behavior!r}")
        if self.session.is_streaming and sb is None:
            raise RpcCommandError(
                "Agent is already processing. Send streamingBehavior 'steer' or 'followUp' to queue the message."
            )
        rid = msg.get("id")

        async def run() -> None:
            try:
                await self.session.prompt(text, images=images, streaming_behavior=sb, source="rpc")
            except Exception as e:
                self.respond("prompt", rid, error=f"{type(e).__name__}: {e}")

        self.respond("prompt", rid)
        self._spawn(run())
        return _NO_RESPONSE

    async def cmd_steer(self, msg: dict[str, Any]) -> Any:
        await self.session.steer(_text(msg, "message"), _images(msg.get("images")))

    async def cmd_follow_up(self, msg: dict[str, Any]) -> Any:
        await self.session.follow_up(_text(msg, "message"), _images(msg.get("images")))

    async def cmd_abort(self, msg: dict[str, Any]) -> Any:
        await self.session.abort()

    async def cmd_new_session(self, msg: dict[str, Any]) -> Any:
        parent = msg.get("parentSession")
        if parent is not None and not isinstance(parent, str):
            raise RpcCommandError(f"new_session: parentSession must be a session file path, got {parent!r}")
        ok = await self.session.new_session(parent_session=parent)
        return {"cancelled": not ok}

    # ------------------------------------------------------------------ state
    async def cmd_get_state(self, msg: dict[str, Any]) -> Any:
        s = self.session
        sm = s.session_manager
        return {
            "model": model_json(s.model),
            "thinkingLevel": s.thinking_level,
            "isStreaming": s.is_streaming,
            "isCompacting": bool(getattr(s, "_compaction_abort", None)),
            "steeringMode": s.agent.steering_mode,
            "followUpMode": s.agent.follow_up_mode,
            "sessionFile": sm.get_session_file(),
            "sessionId": sm.get_session_id(),
            "sessionName": sm.get_session_name(),
            "autoCompactionEnabled": s.settings.compaction.enabled,
            "messageCount": len(s.messages),
            "pendingMessageCount": s.agent.queued_message_count,
        }

    async def cmd_get_messages(self, msg: dict[str, Any]) -> Any:
        return {"messages": [m.to_json() for m in self.session.messages]}

    async def cmd_get_last_assistant_text(self, msg: dict[str, Any]) -> Any:
        return {"text": self.session.get_last_assistant_text()}

    async def cmd_get_session_stats(self, msg: dict[str, Any]) -> Any:
        s = self.session
        counts = {"user": 0, "assistant": 0, "toolResult": 0}
        calls = 0
        tok = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        cost = 0.0
        for m in s.messages:
            role = getattr(m, "role", "")
            if role in counts:
                counts[role] += 1
            if role == "assistant":
                calls += len(m.tool_calls)
                u = m.usage
                tok["input"] += u.input
                tok["output"] += u.output
                tok["cacheRead"] += u.cache_read
                tok["cacheWrite"] += u.cache_write
                tok["total"] += u.total_tokens
                cost += u.cost.total
        sm = s.session_manager
        return {
            "sessionFile": sm.get_session_file(),
            "sessionId": sm.get_session_id(),
            "userMessages": counts["user"],
            "assistantMessages": counts["assistant"],
            "toolCalls": calls,
            "toolResults": counts["toolResult"],
            "totalMessages": len(s.messages),
            "tokens": tok,
            "cost": cost,
        }

    async def cmd_get_commands(self, msg: dict[str, Any]) -> Any:
        return {
            "commands": [
                {"name": c.name, "description": c.description, "source": c.source, "path": c.path}
                for c in self.session.get_commands()
            ]
        }

    async def cmd_set_session_name(self, msg: dict[str, Any]) -> Any:
        self.session.set_session_name(_text(msg, "name"))

    # ------------------------------------------------------------------ model / thinking / queues
    async def cmd_set_model(self, msg: dict[str, Any]) -> Any:
        provider, model_id = msg.get("provider"), msg.get("modelId")
        if not isinstance(provider, str) or not isinstance(model_id, str):
            raise RpcCommandError("set_model needs 'provider' and 'modelId' strings")
        try:
            model = self.registry.find(f"{provider}/{model_id}")
        except ValueError as e:
            raise RpcCommandError(str(e)) from None
        await self.session.set_model(model)
        return model_json(model)

    async def cmd_get_available_models(self, msg: dict[str, Any]) -> Any:
        return {"models": [model_json(m) for m in self.registry.models()]}

    async def cmd_cycle_model(self, msg: dict[str, Any]) -> Any:
        models = [m for m in self.registry.models() if m.api != "scripted" or m.id == self.session.model.id]
        if len(models) < 2:
            return None
        cur = self.session.model
        idx = next((i for i, m in enumerate(models) if m.provider == cur.provider and m.id == cur.id), -1)
        nxt = models[(idx + 1) % len(models)]
        await self.session.set_model(nxt)
        return {"model": model_json(nxt), "thinkingLevel": self.session.thinking_level, "isScoped": False}

    async def cmd_set_thinking_level(self, msg: dict[str, Any]) -> Any:
        level = msg.get("level")
        if level not in THINKING_LEVELS:
            raise RpcCommandError(f"level must be one of {', '.join(THINKING_LEVELS)}, got {level!r}")
        self.session.set_thinking_level(level)

    async def cmd_cycle_thinking_level(self, msg: dict[str, Any]) -> Any:
        if not self.session.model.reasoning:
            return None
        cur = self.session.thinking_level
        levels = list(THINKING_LEVELS)
        nxt = levels[(levels.index(cur) + 1) % len(levels)] if cur in levels else "off"
        self.session.set_thinking_level(nxt)
        return {"level": nxt}

    async def cmd_set_steering_mode(self, msg: dict[str, Any]) -> Any:
        self.session.agent.steering_mode = _mode(msg)

    async def cmd_set_follow_up_mode(self, msg: dict[str, Any]) -> Any:
        self.session.agent.follow_up_mode = _mode(msg)

    # ------------------------------------------------------------------ compaction / retry
    async def cmd_compact(self, msg: dict[str, Any]) -> Any:
        result = await self.session.compact(msg.get("customInstructions"))
        return result.to_json() if hasattr(result, "to_json") else result

    async def cmd_set_auto_compaction(self, msg: dict[str, Any]) -> Any:
        self.session.settings.compaction.enabled = bool(msg.get("enabled"))

    async def cmd_set_auto_retry(self, msg: dict[str, Any]) -> Any:
        self.session.settings.retry.enabled = bool(msg.get("enabled"))

    async def cmd_abort_retry(self, msg: dict[str, Any]) -> Any:
        self.session.abort_retry()

    # ------------------------------------------------------------------ bash
    async def cmd_bash(self, msg: dict[str, Any]) -> Any:
        """Run ``command`` through the bash tool's runner (``autocue.tools.bash.run_bash``): its own
        process group killed whole on ``abort_bash``, the output's tail kept (full output in a
        temp file when cut), and what ran before an abort is still returned."""
        from autocue.tools.bash import run_bash
        from autocue.tools.common import ToolError

        command = _text(msg, "command")
        if self.bash_abort is not None:
            raise RpcCommandError("a bash command is already running; send abort_bash first")
        m = await self._user_bash(command)
        if m is None:
            self.bash_abort = AbortController()
            try:
                run = await run_bash(command, self.session.cwd, signal=self.bash_abort.signal)
            except ToolError as e:
                raise RpcCommandError(str(e)) from None
            finally:
                self.bash_abort = None
            cancelled = run.stopped is not None
            code = None if cancelled or run.code < 0 else run.code
            m = BashExecutionMessage(command, run.output, code, cancelled, run.truncated, run.full_output_path)
        self.session.agent.append_message(m)
        self.session.session_manager.append_message(m)
        data: dict[str, Any] = {"output": m.output, "exitCode": m.exit_code, "cancelled": m.cancelled,
                                "truncated": m.truncated}
        if m.full_output_path is not None:
            data["fullOutputPath"] = m.full_output_path
        return data

    async def _user_bash(self, command: str) -> BashExecutionMessage | None:
        """``user_bash``: a handler's ``{result: {output, exit_code, cancelled, truncated}}`` is the
        command's result (nothing runs); ``operations`` (pi's custom executors) are not supported."""
        from autocue.casing import MISSING, field
        from autocue.extensions.events import UserBashEvent

        runner = self.session.runner
        if not runner.has("user_bash"):
            return None
        r = await runner.emit_first(UserBashEvent(command, False, self.session.cwd))
        res = field(r, "result") if r is not None else None
        if res is None or res is MISSING:
            return None
        output = field(res, "output")
        code = field(res, "exit_code")
        out = output if isinstance(output, str) else ""
        exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
        return BashExecutionMessage(
            command, out, exit_code, field(res, "cancelled") is True, field(res, "truncated") is True, None
        )

    async def cmd_abort_bash(self, msg: dict[str, Any]) -> Any:
        if self.bash_abort is not None:
            self.bash_abort.abort()

    async def cmd_export_html(self, msg: dict[str, Any]) -> Any:
        from autocue.view.export import export_session_html

        out = msg.get("outputPath")
        if out is not None and not isinstance(out, str):
            raise RpcCommandError("export_html: 'outputPath' must be a string")
        try:
            return {"path": str(export_session_html(self.session.session_manager, self.session.cwd, out))}
        except (OSError, ValueError) as e:
            raise RpcCommandError(f"export_html: {e}") from None

    # ------------------------------------------------------------------ session files
    async def cmd_switch_session(self, msg: dict[str, Any]) -> Any:
        from autocue.session.errors import SessionFileError

        path = _text(msg, "sessionPath")
        try:
            ok = await self.session.switch_session(path)
        except (SessionFileError, OSError) as e:
            raise RpcCommandError(f"switch_session: {e}") from None
        return {"cancelled": not ok}

    async def cmd_fork(self, msg: dict[str, Any]) -> Any:
        from autocue.session.errors import EntryNotFoundError

        try:
            r = await self.session.fork(_text(msg, "entryId"))
        except EntryNotFoundError as e:
            raise RpcCommandError(f"fork: {e}") from None
        return {"text": r.text, "cancelled": r.cancelled}

    async def cmd_get_fork_messages(self, msg: dict[str, Any]) -> Any:
        return {"messages": self.session.get_fork_messages()}


_NO_RESPONSE = object()


def _text(msg: dict[str, Any], key: str) -> str:
    v = msg.get(key)
    if not isinstance(v, str):
        raise RpcCommandError(f"{msg.get('type')} needs a string '{key}'")
    return v


def _mode(msg: dict[str, Any]) -> Any:
    mode = msg.get("mode")
    if mode not in ("one-at-a-time", "all"):
        raise RpcCommandError(f"mode must be 'one-at-a-time' or 'all', got {mode!r}")
    return mode


def _images(raw: Any) -> list[ImageContent] | None:
    if not raw:
        return None
    if not isinstance(raw, list):
        raise RpcCommandError("images must be a list of {type:'image', data, mimeType}")
    out = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict) or not isinstance(b.get("data"), str) or not isinstance(b.get("mimeType"), str):
            raise RpcCommandError(f"images[{i}] must be {{type:'image', data:<base64>, mimeType}}")
        out.append(ImageContent(b["data"], b["mimeType"]))
    return out


def _start_reader(stdin: IO[bytes], loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> None:
    """Read lines (split on ``\\n`` only) in a thread and hand them to the loop."""

    def run() -> None:
        try:
            while True:
                line = stdin.readline()
                if not line:
                    break
                loop.call_soon_threadsafe(queue.put_nowait, line)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, _EOF)

    threading.Thread(target=run, name="autocue-rpc-stdin", daemon=True).start()


async def run_rpc(
    session: AgentSession, registry: ModelRegistry, ui: RpcUI | None, *, stdin: IO[bytes], stdout: IO[bytes]
) -> int:
    server = RpcServer(session, registry, ui, stdout)
    unsubscribe = session.subscribe(server.on_event)
    queue: asyncio.Queue[Any] = asyncio.Queue()
    _start_reader(stdin, asyncio.get_running_loop(), queue)
    try:
        while True:
            line = await queue.get()
            if line is _EOF:
                break
            # Commands run one after another, except prompt (spawned) and UI responses (instant);
            # a slow command (bash, compact) runs as a task so UI responses still get through.
            t = server._spawn(server.handle_line(line))
            if not _is_slow(line):
                await t
        while server.tasks:
            await asyncio.gather(*list(server.tasks), return_exceptions=True)
        await session.wait_for_idle()
    finally:
        unsubscribe()
        if ui is not None:
            ui.cancel_all()
        await session.dispose()
    return 0


def _is_slow(line: bytes) -> bool:
    return b'"bash"' in line or b'"compact"' in line or b'"new_session"' in line or b'"abort"' in line


__all__ = ["RpcServer", "run_rpc"]
