"""The pieces of a recorded agent run (``autocue record --agent``) besides the model turns.

- ``TrafficTap``: an ASGI layer in front of the recording proxy that reads every request body
  (HTTP) and client frame (the Responses WebSocket) for the tool results the agent sends back
  (Anthropic ``tool_result``, Chat ``role: tool``, Responses ``function_call_output``, Gemini
  ``functionResponse`` with an id), and counts requests in flight, so the driver knows when the
  agent is waiting for its user.
- ``Snapshot``: the workspace's files (size, SHA-256), read after each turn; ``changes`` turns two
  snapshots into the ``assert: fs`` check of a turn (contents up to ``MAX_TEXT`` bytes of UTF-8,
  a SHA-256 beyond, ``notExists`` for deleted files; files ignored by ``.gitignore`` and binary
  files over ``MAX_BINARY`` bytes are skipped and listed in the step's ``_meta``).
- ``shell_entry``: a shell tool call with its command and exit code (parsed from the result text
  each CLI writes).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_TEXT = 64 * 1024
"""Bytes of a changed UTF-8 file kept as its contents; a larger one is checked by its SHA-256."""
MAX_BINARY = 8 * 1024 * 1024
"""Bytes of a changed binary (non UTF-8) file still hashed; a larger one is skipped (and listed)."""
MAX_RESULT = 4000
"""Characters of a tool result kept in the scenario (the rest is cut, with a note)."""

SHELL_TOOLS = frozenset({"Bash", "bash", "exec_command", "shell", "local_shell", "run_shell_command", "runCmd",
                         "shell_command"})
"""Tool names whose calls are shell commands (Claude Code, pi, Codex, Gemini CLI, autocue's)."""
_EXIT = (re.compile(r"Process exited with code (-?\d+)"),          # Codex exec_command
         re.compile(r"Command exited with code (-?\d+)"),          # pi bash
         re.compile(r"(?i)exit code:?\s*(-?\d+)"))  # Claude Code ("Exit code 1"), Gemini CLI ("Exit Code: 1")
_WS_DONE = frozenset({"response.completed", "response.failed", "response.incomplete", "response.done", "error"})


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    is_error: bool


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [c.get("text") if isinstance(c, dict) else c for c in content]
        if all(isinstance(p, str) for p in parts):
            return "\n".join(p for p in parts if isinstance(p, str))
    return orjson.dumps(content).decode()


def tool_results(doc: Any) -> Iterator[tuple[str, ToolResult]]:
    """Every ``(call id, result)`` in a request body or WebSocket frame, whatever the wire API."""
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
            continue
        if not isinstance(v, dict):
            continue
        kind = v.get("type")
        if kind == "tool_result" and isinstance(v.get("tool_use_id"), str):
            yield v["tool_use_id"], ToolResult(_text(v.get("content")), bool(v.get("is_error")))
        elif kind in ("function_call_output", "custom_tool_call_output") and isinstance(v.get("call_id"), str):
            yield v["call_id"], ToolResult(_text(v.get("output")), False)
        elif v.get("role") == "tool" and isinstance(v.get("tool_call_id"), str):
            yield v["tool_call_id"], ToolResult(_text(v.get("content")), False)
        elif isinstance(fr := v.get("functionResponse"), dict) and isinstance(fr.get("id"), str):
            yield fr["id"], ToolResult(_text(fr.get("response")), False)
        else:
            stack.extend(x for x in v.values() if isinstance(x, (dict, list)))


class TrafficTap:
    """ASGI middleware: reads what the agent sends (tool results) and counts model traffic in flight."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.results: dict[str, ToolResult] = {}
        self.requests = 0
        """Requests (HTTP) and response frames (WebSocket) seen, ever."""
        self.in_flight = 0
        self.last_activity = time.monotonic()

    def _scan(self, data: bytes) -> Any:
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        for call_id, res in tool_results(doc):
            self.results[call_id] = res
        return doc

    def busy(self) -> bool:
        return self.in_flight > 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()

        async def rx() -> Message:
            m = await receive()
            if m["type"] == "http.request":
                body.extend(m.get("body") or b"")
                if not m.get("more_body") and scope.get("method") == "POST":
                    self._scan(bytes(body))
            return m

        self.requests += 1
        self.in_flight += 1
        self.last_activity = time.monotonic()
        try:
            await self.app(scope, rx, send)
        finally:
            self.in_flight -= 1
            self.last_activity = time.monotonic()

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        pending = 0

        async def rx() -> Message:
            nonlocal pending
            m = await receive()
            text = m.get("text") if m["type"] == "websocket.receive" else None
            if text:
                doc = self._scan(text.encode())
                if isinstance(doc, dict) and doc.get("type") == "response.create":
                    pending += 1
                    self.requests += 1
                    self.in_flight += 1
                    self.last_activity = time.monotonic()
            return m

        async def tx(m: Message) -> None:
            nonlocal pending
            text = m.get("text") if m["type"] == "websocket.send" else None
            if text and pending and any(f'"{t}"' in text[:200] for t in _WS_DONE):
                try:
                    kind = orjson.loads(text).get("type")
                except (orjson.JSONDecodeError, AttributeError):
                    kind = None
                if kind in _WS_DONE:
                    pending -= 1
                    self.in_flight -= 1
                    self.last_activity = time.monotonic()
            await send(m)

        try:
            await self.app(scope, rx, tx)
        finally:
            self.in_flight -= pending
            self.last_activity = time.monotonic()


def exit_code(result: ToolResult) -> int | None:
    """The exit code a shell tool's result states (None: not stated and not an error: 0 is assumed by the caller)."""
    for pat in _EXIT:
        m = pat.search(result.text)
        if m:
            return int(m.group(1))
    return None


UNSTATED_IS_ZERO = frozenset({"claude", "codex", "pi", "gemini"})
"""Agents whose shell results state every non-zero exit code (a result without one exited 0); others'
(opencode's: its output only) give ``exitCode: null`` when the result states none."""


def shell_entry(name: str, call_id: str, args: Any, result: ToolResult | None, *,
                unstated_is_zero: bool = True) -> dict[str, Any] | None:
    """``{toolCallId, command, exitCode}`` of a shell tool call (None: not a shell tool)."""
    if name not in SHELL_TOOLS or not isinstance(args, dict):
        return None
    cmd = args.get("command", args.get("cmd"))
    if isinstance(cmd, list):
        cmd = " ".join(str(c) for c in cmd)
    entry: dict[str, Any] = {"toolCallId": call_id, "command": cmd}
    if result is None:
        entry["exitCode"] = None
        entry["note"] = "no tool result was sent back (the run ended first)"
    else:
        code = exit_code(result)
        entry["exitCode"] = code if code is not None else (0 if unstated_is_zero and not result.is_error else None)
        if code is None and (result.is_error or not unstated_is_zero):
            entry["note"] = "the tool result states no exit code"
    return entry


def clip(text: str, limit: int = MAX_RESULT) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters not recorded]"


# ---------------------------------------------------------------------- workspace snapshots
@dataclass(frozen=True, slots=True)
class FileState:
    size: int
    sha256: str


@dataclass(slots=True)
class Snapshot:
    files: dict[str, FileState] = field(default_factory=dict)
    ignored: set[str] = field(default_factory=set)


def _walk(root: Path) -> Iterator[str]:
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".git" and not os.path.islink(os.path.join(d, x)))
        for n in sorted(names):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p):
                yield os.path.relpath(p, root).replace(os.sep, "/")


def _ignored(root: Path, paths: list[str], git_dir: Path) -> set[str]:
    """The paths ``.gitignore`` files of ``root`` ignore (git's own matching; none without git)."""
    git = shutil.which("git")
    if git is None or not paths or not any(p.endswith(".gitignore") for p in paths):
        return set()
    if not git_dir.exists():
        subprocess.run([git, "init", "-q", str(git_dir)], check=False, capture_output=True)
    r = subprocess.run([git, f"--git-dir={git_dir / '.git'}", f"--work-tree={root}", "check-ignore", "--no-index",
                        "-z", "--stdin"], input="\0".join(paths).encode(), capture_output=True, check=False)
    return {p for p in r.stdout.decode("utf-8", "replace").split("\0") if p}


def snapshot(root: Path, git_dir: Path) -> Snapshot:
    paths = list(_walk(root))
    ignored = _ignored(root, paths, git_dir)
    snap = Snapshot(ignored=ignored)
    for rel in paths:
        if rel in ignored:
            continue
        p = root / rel
        try:
            size = p.stat().st_size
            if size > MAX_BINARY and not _is_text(p):
                snap.files[rel] = FileState(size, "")
                continue
            with p.open("rb") as f:
                snap.files[rel] = FileState(size, hashlib.file_digest(f, "sha256").hexdigest())
        except OSError:
            continue
    return snap


def _is_text(p: Path) -> bool:
    try:
        with p.open("rb") as f:
            head = f.read(8192)
    except OSError:
        return False
    return b"\0" not in head


def changes(root: Path, before: Snapshot, after: Snapshot, turn: int) -> dict[str, Any] | None:
    """The ``assert`` timeline item checking what changed between two snapshots (None: nothing did)."""
    contents: dict[str, str] = {}
    hashes: dict[str, str] = {}
    skipped: list[dict[str, str]] = []
    for rel, st in after.files.items():
        if before.files.get(rel) == st:
            continue
        if not st.sha256:
            skipped.append({"path": rel, "why": f"binary, {st.size} bytes (over {MAX_BINARY})"})
            continue
        text = None
        if st.size <= MAX_TEXT:
            try:
                data = (root / rel).read_bytes()
                text = data.decode("utf-8") if b"\0" not in data else None
            except (OSError, UnicodeDecodeError):
                text = None
        if text is not None:
            contents[rel] = text
        else:
            hashes[rel] = st.sha256
    gone = sorted(set(before.files) - set(after.files) - after.ignored)
    skipped += [{"path": p, "why": "ignored by .gitignore"} for p in sorted(after.ignored - before.ignored)]
    fs: dict[str, Any] = {}
    if contents:
        fs["contents"] = contents
    if hashes:
        fs["sha256"] = hashes
    if gone:
        fs["notExists"] = gone
    if not fs and not skipped:
        return None
    meta: dict[str, Any] = {"turn": turn, "workspaceChanged": sorted([*contents, *hashes, *gone])}
    if skipped:
        meta["skipped"] = skipped
    if not fs:  # only skipped files changed: nothing to check, said in a comment
        return {"_meta": meta}
    return {"assert": {"fs": fs}, "_meta": meta}
