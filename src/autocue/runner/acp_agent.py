"""The ACP agent: the mock agent's scenario played over the Agent Client Protocol on stdio.

``autocue acp-agent SCENARIO`` (``autocue mock-agent --format acp``) answers ``initialize``,
``session/new``, ``session/load`` and ``session/prompt`` with the official ``acp`` package's
``AgentSideConnection``. Each ``session/prompt`` plays the scenario's next turn (the
``initialPrompt``'s replies for the first, then one turn per ``userInputs`` line):

- thinking and text stream as ``agent_thought_chunk`` / ``agent_message_chunk`` updates;
- each ``agentToolUse`` (or tool-named event) is a ``tool_call`` (kind, title, locations, raw
  input) then ``tool_call_update`` ``in_progress`` → ``completed`` / ``failed`` with its output.
  Commands run through the client's ``terminal/*`` methods, reads, writes and edits through
  ``fs/read_text_file`` / ``fs/write_text_file`` when the client's ``initialize`` offers them;
  otherwise (and for the other tools: grep, find, ls ...) autocue's own tools run them in the
  session's ``cwd``. A result or status that differs from the scenario's is one stderr line and
  an entry of the prompt response's ``_meta.autocue.failures``;
- an ``agentEdits`` record is an ``edit`` tool call making that edit (its line counts);
- an ``agentPlan`` part of a reply is a ``plan`` update;
- a tool call whose ``_meta`` says ``permission: ask`` (or named by ``--ask-permission``) first
  asks ``session/request_permission``; a rejection fails the call without running it
  (``allow_always`` / ``reject_always`` hold for that tool for the rest of the session);
- an ``error`` step ends the prompt with a JSON-RPC error (the model call failed);
- the turn ends with the stop reason of its last reply's ``_meta.stopReason`` (``end_turn`` by
  default; ``max_tokens`` / ``length``, ``refusal``, ``max_turn_requests``); ``session/cancel``
  ends it at once with ``cancelled``, killing the command it runs (or ``terminal/kill``).

A prompt beyond the scripted turns is a JSON-RPC error naming the scenario and the turn. A line
that is not JSON is answered with a -32700 error, a message that is not a JSON-RPC request,
notification or response with -32600, an unknown method with -32601, bad params with -32602;
each problem is one line on stderr and the agent keeps serving. End of stdin ends it (exit 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, RequestError
from acp._transport import NdjsonTransport
from acp.core import AgentSideConnection
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallLocation,
    ToolCallUpdate,
)
from acp.task import MessageSender, TaskSupervisor

from autocue.runner.mockagent import ToolOutcome, normalise_result, run_tool, scripted_edit

PROG = "autocue acp-agent"
STOP_REASONS = {"stop": "end_turn", "end_turn": "end_turn", "toolUse": "end_turn", "length": "max_tokens",
                "max_tokens": "max_tokens", "refusal": "refusal", "max_turn_requests": "max_turn_requests"}
"""A reply's ``_meta.stopReason`` (the recorded names and ACP's) → the prompt's ACP stop reason."""
KINDS = {"bash": "execute", "read": "read", "write": "edit", "edit": "edit", "grep": "search", "find": "search",
         "ls": "search", "listFiles": "search"}
PERMISSION_OPTIONS = [PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
                      PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
                      PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
                      PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always")]


def problem(message: str) -> None:
    """One line on stderr per problem."""
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- the plan


def acp_plan(scenario: Any) -> dict[str, Any]:
    """The mock agent's plan of ``scenario`` with what the ACP agent also plays: each reply's ``stop``
    (ACP stop reason), each tool call's ``permission`` and the replies' ``agentPlan`` parts (``plan``).
    A ``_meta.stopReason`` or ``permission`` it cannot play raises ``ValueError`` naming its position."""
    from autocue.runner.mockplan import plan_from_scenario
    from autocue.scenario import AgentEdits, AssistantPart, ErrorStep, LlmResponse, ThinkPart, ToolUse
    from autocue.scenario.timeline import AgentPlan

    plan = plan_from_scenario(scenario)
    responses = iter(ev for ev in scenario.timeline if isinstance(ev, LlmResponse))
    for ev in plan["events"]:
        if "reply" not in ev:
            continue
        resp = next(responses)
        played = iter(ev["reply"])
        parts: list[dict[str, Any]] = []
        for p in resp.parts:
            if isinstance(p, AgentPlan):
                parts.append({"plan": [_entry(e, str(p.pos)) for e in p.entries]})
            elif isinstance(p, ThinkPart | AssistantPart | ToolUse | AgentEdits | ErrorStep):
                part = next(played)
                if isinstance(p, ToolUse) and (ask := (p.meta or {}).get("permission")) is not None:
                    if ask not in ("ask", "allow"):
                        raise ValueError(f"{p.pos}: _meta.permission {ask!r}: use ask (or allow)")
                    part["tool"]["permission"] = ask
                parts.append(part)
        ev["reply"] = parts
        if (stop := (resp.meta or {}).get("stopReason")) is not None:
            if stop not in STOP_REASONS:
                raise ValueError(f"{resp.pos}: _meta.stopReason {stop!r}: use one of {', '.join(STOP_REASONS)}")
            ev["stop"] = STOP_REASONS[stop]
    return plan


def _entry(e: Any, pos: str) -> dict[str, str]:
    if isinstance(e, str):
        return {"content": e, "priority": "medium", "status": "pending"}
    if not isinstance(e, dict) or not isinstance(e.get("content"), str):
        raise ValueError(f"{pos}: agentPlan entry {e!r}: give {{content, priority?, status?}} or a string")
    return {"content": e["content"], "priority": str(e.get("priority", "medium")),
            "status": str(e.get("status", "pending"))}


def turns_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's turns: ``{"replies": [...], "stop": reason}``, the first for the initial prompt, then one
    per user input line."""
    turns: list[dict[str, Any]] = [{"replies": [], "stop": "end_turn"}]
    for ev in plan["events"]:
        if "reply" in ev:
            turns[-1]["replies"].append(ev["reply"])
            turns[-1]["stop"] = ev.get("stop", "end_turn")
        else:
            turns.extend({"replies": [], "stop": "end_turn"} for _ in range(int(ev.get("inputs", 0))))
    return turns


# ---------------------------------------------------------------------------- the wire


class LineTransport(NdjsonTransport):
    """The ``acp`` package's stdio framing, answering what it would drop: a line that is not JSON gets a
    -32700 error, a message that is neither a request, a notification nor a response a -32600 one.

    At the end of the input it calls ``on_eof`` (the agent cancels its prompts: the client is gone) and
    reports the end once every request read is answered (at most ``drain`` seconds), so piped requests
    all get their answer before the agent exits."""

    def __init__(self, reader: asyncio.StreamReader, sender: MessageSender, *, on_eof: Any = None,
                 drain: float = 10.0) -> None:
        super().__init__(reader, sender)
        self.on_eof = on_eof
        self.drain = drain
        self.eof = False
        self._open: set[Any] = set()
        self._answered = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        await super().send(message)
        if "method" not in message and ("result" in message or "error" in message):
            self._open.discard(json.dumps(message.get("id")))
            if not self._open:
                self._answered.set()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            raw = await self._read_line()
            if not raw:
                await self._end()
                return None
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError as e:
                problem(f"parse error (-32700): {e}: {line[:80]!r}")
                await self._error(None, -32700, f"Parse error: {e}")
                continue
            if isinstance(message, dict) and isinstance(message.get("method"), str):
                if "id" in message:
                    self._open.add(json.dumps(message["id"]))
                    self._answered.clear()
                return message
            if isinstance(message, dict) and "id" in message and ("result" in message or "error" in message):
                return message
            rid = message.get("id") if isinstance(message, dict) else None
            problem(f"invalid request (-32600): not a JSON-RPC request, notification or response: {line[:80]!r}")
            await self._error(rid if isinstance(rid, int | str) else None, -32600,
                              "Invalid Request: a JSON-RPC 2.0 object with a string method (or a response) expected")

    async def _end(self) -> None:
        self.eof = True
        if self.on_eof is not None:
            self.on_eof()
        if self._open:
            try:
                await asyncio.wait_for(self._answered.wait(), self.drain)
            except TimeoutError:
                problem(f"the input ended; {len(self._open)} request(s) left unanswered after {self.drain:g}s")
        return None

    async def _error(self, rid: int | str | None, code: int, message: str) -> None:
        await self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        return f"{PROG}: {record.getMessage()}" + (f": {type(exc).__name__}: {exc}" if exc else "")


# ---------------------------------------------------------------------------- the agent


@dataclass
class Session:
    id: str
    cwd: Path
    turn: int = 0
    task: asyncio.Task[str] | None = None
    cancelled: bool = False
    allowed: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)
    history: list[Any] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    tools: dict[str, Any] = field(default_factory=dict)
    waiting: int = 0
    """Requests to the client awaiting their answer."""
    """autocue's tools made so far for this session's ``cwd``."""


class ScenarioAgent:
    """An ``acp.Agent`` playing a plan (see the module docstring)."""

    def __init__(self, plan: dict[str, Any], *, ask: frozenset[str] = frozenset(), version: str = "") -> None:
        self.plan = plan
        self.turns = turns_of(plan)
        self.ask = ask
        self.version = version
        self.conn: Any = None
        self.gone = False
        """The input ended: the client answers no more requests."""
        self.caps = ClientCapabilities()
        self.sessions: dict[str, Session] = {}
        self.methods: dict[Any, str] = {}
        self._calls = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def observe(self, event: Any) -> None:
        """A connection observer: one stderr line per error response the agent sends."""
        msg = event.message
        if event.direction.value == "incoming" and "method" in msg and "id" in msg:
            self.methods[msg["id"]] = msg["method"]
        elif event.direction.value == "outgoing" and "result" in msg and "method" not in msg:
            self.methods.pop(msg.get("id"), None)
        elif event.direction.value == "outgoing" and "error" in msg and "method" not in msg:
            err = msg["error"] or {}
            data = err.get("data")
            if isinstance(data, dict) and isinstance(data.get("errors"), list):  # pydantic's, from invalid params
                detail = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}" for e in data["errors"])
            else:
                detail = json.dumps(data)[:200] if data is not None else ""
            problem(f"{self.methods.pop(msg.get('id'), 'request')} (id {msg.get('id')}): error {err.get('code')} "
                    f"{err.get('message')}{' ' + detail if detail else ''}")

    # ------------------------------------------------------------------ methods
    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None, **kwargs: Any) -> InitializeResponse:
        self.caps = client_capabilities or ClientCapabilities()
        return InitializeResponse(protocol_version=min(protocol_version, PROTOCOL_VERSION),
                                  agent_capabilities=AgentCapabilities(load_session=True),
                                  agent_info=Implementation(name="autocue-acp-agent", title="autocue ACP agent",
                                                            version=self.version or "0"),
                                  auth_methods=[])

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        sid = f"sess_{len(self.sessions) + 1}"
        self.sessions[sid] = Session(sid, Path(cwd))
        return NewSessionResponse(session_id=sid)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None,
                           **kwargs: Any) -> LoadSessionResponse:
        s = self._session(session_id)
        s.cwd = Path(cwd)
        for update in s.history:  # the conversation so far, as the protocol asks of session/load
            await self.conn.session_update(session_id=session_id, update=update)
        return LoadSessionResponse()

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        return None

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        s = self._session(session_id)
        if s.task is not None and not s.task.done():
            raise RequestError.invalid_request({"details": f"session {session_id} is already running a prompt"})
        if s.turn >= len(self.turns):
            raise RequestError(-32600, f"scenario {self.plan['name']}: prompt {s.turn + 1} has no turn to play "
                               f"(the scenario scripts {len(self.turns)} turn(s): the initial prompt and one per "
                               f"user input)", {"scenario": self.plan["name"], "turn": s.turn + 1})
        turn = self.turns[s.turn]
        s.turn += 1
        s.cancelled = False
        s.failures = []
        for block in prompt:  # the user's turn, replayed by session/load
            if getattr(block, "type", None) == "text":
                from acp.helpers import update_user_message_text

                s.history.append(update_user_message_text(block.text))
        s.task = asyncio.create_task(self._play(s, turn))
        try:
            stop = await s.task
            if s.cancelled:  # session/cancel came as the turn ended: the prompt still ends cancelled
                return PromptResponse(stop_reason="cancelled")
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if s.cancelled and not (current is not None and current.cancelling()):
                return PromptResponse(stop_reason="cancelled")
            raise
        meta = {"autocue": {"failures": s.failures}} if s.failures else None
        return PromptResponse(stop_reason=stop, field_meta=meta)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        s = self.sessions.get(session_id)
        if s is None:
            problem(f"session/cancel: no session {session_id!r}")
            return
        if s.task is not None and not s.task.done():
            s.cancelled = True
            s.task.cancel()

    def end_of_input(self) -> None:
        """The client is gone: a prompt waiting for its answer ends (``cancelled``), as does one that asks it
        later; the others play on (their updates are still written)."""
        self.gone = True
        for s in self.sessions.values():
            if s.task is not None and not s.task.done() and s.waiting:
                s.cancelled = True
                s.task.cancel()

    async def _ask(self, s: Session, method: str, **params: Any) -> Any:
        """A request to the client (``self.conn.<method>``); once the input ended the client cannot answer:
        the prompt ends ``cancelled``."""
        if self.gone:
            s.cancelled = True
            raise asyncio.CancelledError
        s.waiting += 1
        try:
            return await getattr(self.conn, method)(session_id=s.id, **params)
        finally:
            s.waiting -= 1

    def _session(self, sid: str) -> Session:
        if sid not in self.sessions:
            raise RequestError.invalid_params({"details": f"no session {sid!r} (known: "
                                               f"{', '.join(self.sessions) or 'none'})"})
        return self.sessions[sid]

    # ------------------------------------------------------------------ playing
    async def _send(self, s: Session, update: Any) -> None:
        s.history.append(update)
        await self.conn.session_update(session_id=s.id, update=update)

    async def _play(self, s: Session, turn: dict[str, Any]) -> str:
        for reply in turn["replies"]:
            for part in reply:
                if "think" in part:
                    await self._send(s, update_agent_thought_text(part["think"]))
                elif "text" in part:
                    await self._send(s, update_agent_message_text(part["text"]))
                elif "plan" in part:
                    await self._send(s, update_plan(plan_entry(e["content"], priority=e["priority"],
                                                               status=e["status"]) for e in part["plan"]))
                elif "tool" in part:
                    await self._tool(s, part["tool"])
                elif "edit" in part:
                    await self._edit(s, part["edit"])
                elif "error" in part:
                    raise RequestError(-32603, f"scenario {self.plan['name']}: the scripted model call failed: "
                                       f"{part['error']}", {"scenario": self.plan["name"]})
        return str(turn["stop"])

    def _call_id(self, t: dict[str, Any]) -> str:
        self._calls += 1
        return str(t.get("id") or f"call_{self._calls}")

    def _abs(self, s: Session, path: str) -> str:
        return str((s.cwd / path).resolve())

    async def _tool(self, s: Session, t: dict[str, Any]) -> None:
        cid = self._call_id(t)
        name, args = t["mapped"] if t.get("mapped") else (t["name"], t["args"])
        kind = KINDS.get(name, "other")
        title = _title(t["name"], t["args"])
        locations = [ToolCallLocation(path=self._abs(s, args["path"]))] if isinstance(args.get("path"), str) else None
        await self._send(s, start_tool_call(cid, title, kind=kind, status="pending",  # type: ignore[arg-type]
                                            locations=locations, raw_input=t["args"]))
        if not await self._permitted(s, t, cid, title, kind):
            rejected = ToolOutcome(f"{t['name']}: the client rejected the permission request; not run", False)
            await self._send(s, update_tool_call(cid, status="failed",
                                                 content=[tool_content(text_block(rejected.text))]))
            self._check(s, t, rejected)
            return
        await self._send(s, update_tool_call(cid, status="in_progress"))
        content: list[Any] = []
        outcome = await self._run(s, t, name, args, cid, content)
        content.append(tool_content(text_block(outcome.text)))
        await self._send(s, update_tool_call(cid, status="completed" if outcome.ok else "failed", content=content,
                                             raw_output={"output": outcome.text}))
        self._check(s, t, outcome)

    async def _permitted(self, s: Session, t: dict[str, Any], cid: str, title: str, kind: str) -> bool:
        name = t["name"]
        if name in s.allowed:
            return True
        if name in s.rejected:
            return False
        if (t.get("permission") != "ask" and not ({name, "all"} & self.ask)) or t.get("permission") == "allow":
            return True
        resp = await self._ask(s, "request_permission", options=PERMISSION_OPTIONS,
            tool_call=ToolCallUpdate(tool_call_id=cid, title=title, kind=kind, status="pending",  # type: ignore[arg-type]
                                     raw_input=t["args"]))
        option = getattr(resp.outcome, "option_id", None)
        if option == "allow_always":
            s.allowed.add(name)
        elif option == "reject_always":
            s.rejected.add(name)
        return option in ("allow_once", "allow_always")

    async def _run(self, s: Session, t: dict[str, Any], name: str, args: dict[str, Any], cid: str,
                   content: list[Any]) -> ToolOutcome:
        fs = self.caps.fs
        can_read, can_write = bool(fs and fs.read_text_file), bool(fs and fs.write_text_file)
        try:
            if name == "bash" and self.caps.terminal:
                return await self._terminal(s, args, cid, content)
            if name == "read" and can_read:
                text = await self._read(s, args["path"])
                lines = text.splitlines(True)
                start = max(int(args.get("offset") or 1), 1) - 1
                end = start + int(args["limit"]) if args.get("limit") else None
                return ToolOutcome("".join(lines[start:end]), True)
            if name == "write" and can_write:
                await self._ask(s, "write_text_file", path=self._abs(s, args["path"]),
                                                content=args["content"])
                content.append(tool_diff_content(self._abs(s, args["path"]), args["content"]))
                return ToolOutcome(f"Successfully wrote {len(args['content'])} bytes to {args['path']}", True)
            if name == "edit" and can_read and can_write:
                return await self._client_edit(s, args, content)
        except RequestError as e:
            return ToolOutcome(f"the client answered {e}", False)
        return await run_tool(t, s.cwd, s.tools)

    async def _read(self, s: Session, path: str) -> str:
        resp = await self._ask(s, "read_text_file", path=self._abs(s, path))
        return str(resp.content)

    async def _client_edit(self, s: Session, args: dict[str, Any], content: list[Any]) -> ToolOutcome:
        path = args["path"]
        old = await self._read(s, path)
        new = old
        for e in args.get("edits") or [{"oldText": args.get("oldText", ""), "newText": args.get("newText", "")}]:
            n = old.count(e["oldText"]) if e["oldText"] else 0
            if n != 1:
                what = "Could not find" if n == 0 else f"Found {n} occurrences of"
                return ToolOutcome(f"{what} the exact text in {path}. The old text must match exactly one place.",
                                   False)
            new = new.replace(e["oldText"], e["newText"], 1)
        await self._ask(s, "write_text_file", path=self._abs(s, path), content=new)
        content.append(tool_diff_content(self._abs(s, path), new, old))
        return ToolOutcome(f"Successfully replaced text in {path}.", True)

    async def _terminal(self, s: Session, args: dict[str, Any], cid: str, content: list[Any]) -> ToolOutcome:
        creating = asyncio.ensure_future(self._ask(s, "create_terminal", command="sh", args=["-c", args["command"]],
                                                   cwd=str(s.cwd)))
        try:
            term = await asyncio.shield(creating)
        except asyncio.CancelledError:  # session/cancel while the client starts it: kill what it started
            if not self.gone:
                with contextlib.suppress(Exception):
                    tid = (await creating).terminal_id
                    await self._ask(s, "kill_terminal", terminal_id=tid)
                    await self._ask(s, "release_terminal", terminal_id=tid)
            raise
        tid = term.terminal_id
        content.append(tool_terminal_ref(tid))
        await self._send(s, update_tool_call(cid, status="in_progress", content=[tool_terminal_ref(tid)]))
        timed_out = False
        try:
            try:
                waiting = self._ask(s, "wait_for_terminal_exit", terminal_id=tid)
                # no wait_for without a timeout: Python 3.11's wait_for can swallow a cancellation (session/cancel)
                # that lands as the inner call completes
                ended = await (asyncio.wait_for(waiting, float(args["timeout"])) if args.get("timeout") else waiting)
            except TimeoutError:
                timed_out = True
                await self._ask(s, "kill_terminal", terminal_id=tid)
                ended = None
            out = await self._ask(s, "terminal_output", terminal_id=tid)
        except asyncio.CancelledError:  # session/cancel: the command dies with the turn
            if not self.gone:  # a client that is gone cannot answer
                await self._ask(s, "kill_terminal", terminal_id=tid)
                await self._ask(s, "release_terminal", terminal_id=tid)
            raise
        await self._ask(s, "release_terminal", terminal_id=tid)
        text = str(out.output)
        body = text.rstrip("\n")
        if timed_out:
            return ToolOutcome(f"{body}\n\nCommand timed out after {args['timeout']} seconds", False)
        code = ended.exit_code if ended is not None else None
        if ended is not None and ended.signal:
            return ToolOutcome(f"{body}\n\nCommand was killed by signal {ended.signal}", False)
        if code not in (0, None):
            return ToolOutcome(f"{body}\n\nCommand exited with code {code}", False)
        return ToolOutcome(body or "(no output)", True)

    async def _edit(self, s: Session, e: dict[str, Any]) -> None:
        cid = self._call_id({})
        path = self._abs(s, e["path"])
        await self._send(s, start_tool_call(cid, f"Edit {e['path']}", kind="edit", status="in_progress",
                                            locations=[ToolCallLocation(path=path)]))
        fs = self.caps.fs
        client = bool(fs and fs.read_text_file and fs.write_text_file)
        try:
            if client:
                try:
                    old = await self._read(s, e["path"])
                except RequestError:
                    old = ""  # a new file
            else:
                p = Path(path)
                old = p.read_text(encoding="utf-8") if p.is_file() else ""
            before = old.splitlines(True)
            if int(e["removed"]) > len(before):
                raise ValueError(f"cannot remove {e['removed']} line(s), the file has {len(before)}")
            new, plus, minus = scripted_edit(before, int(e["added"]), int(e["removed"]))
            if client:
                await self._ask(s, "write_text_file", path=path, content=new)
            else:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                Path(path).write_text(new, encoding="utf-8")
        except (OSError, ValueError, RequestError) as err:
            await self._send(s, update_tool_call(cid, status="failed", content=[tool_content(text_block(str(err)))]))
            self._failure(s, e["pos"], f"agentEdits {e['path']}: {err}")
            return
        await self._send(s, update_tool_call(cid, status="completed", content=[tool_diff_content(path, new, old)]))
        if (plus, minus) != (int(e["added"]), int(e["removed"])):
            self._failure(s, e["pos"], f"agentEdits {e['path']}: the edit changed +{plus} -{minus} lines, the "
                          f"scenario says +{e['added']} -{e['removed']}")

    def _check(self, s: Session, t: dict[str, Any], outcome: ToolOutcome) -> None:
        status = t.get("status")
        if status in ("ok", "error") and (status == "ok") != outcome.ok:
            self._failure(s, t["pos"], f"{t['name']}: status {'ok' if outcome.ok else 'error'}, the scenario "
                          f"expects {status} (result: {outcome.text[:200]!r})")
        if t.get("result") is not None and normalise_result(t["result"]) != normalise_result(outcome.text):
            self._failure(s, t["pos"], f"{t['name']}: the result {normalise_result(outcome.text)[:80]!r} differs "
                          f"from the scenario's {normalise_result(t['result'])[:80]!r}")

    def _failure(self, s: Session, pos: str, message: str) -> None:
        s.failures.append({"position": pos, "message": message})
        problem(f"{pos}: {message}")


def _title(name: str, args: dict[str, Any]) -> str:
    for key in ("cmd", "command", "path", "pattern"):
        if isinstance(args.get(key), str):
            return f"{name} {args[key]}"
    return name


# ---------------------------------------------------------------------------- serving


async def serve(agent: ScenarioAgent) -> None:
    """Serve ``agent`` on stdin/stdout until stdin ends."""
    import os
    import stat

    from acp import stdio

    def pipe_like(fd: int) -> bool:
        mode = os.fstat(fd).st_mode
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)

    if pipe_like(sys.stdin.fileno()) and pipe_like(sys.stdout.fileno()):
        reader, writer = await stdio.stdio_streams()
    else:  # a file, /dev/null or a terminal cannot be watched by the event loop: the package's thread feeder
        reader, writer = await stdio._windows_stdio_streams(asyncio.get_running_loop())
    supervisor = TaskSupervisor(source="autocue.acp-agent")
    transport = LineTransport(reader, MessageSender(writer, supervisor), on_eof=agent.end_of_input)
    # it answers only what it implements: the methods it lacks (session/list, session/fork, ...) are -32601
    conn = AgentSideConnection(cast(Any, agent), transport, listening=False, observers=[agent.observe])
    try:
        await conn.listen()
    finally:
        await conn.close()
        await supervisor.shutdown()


def main_acp_agent(plan: dict[str, Any], *, ask: frozenset[str] = frozenset()) -> int:
    from autocue import __version__

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logging.basicConfig(handlers=[handler], level=logging.WARNING, force=True)
    asyncio.run(serve(ScenarioAgent(plan, ask=ask, version=__version__)))
    return 0
