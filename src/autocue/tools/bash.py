"""The ``bash`` tool: run a command with ``bash -c`` in the tools' working directory.

Arguments ``{command, timeout?}`` (seconds; none by default). The command runs in its own
process group (``start_new_session``); on timeout or abort the **whole group** is killed with
SIGKILL, so background children die too. stdout and stderr are merged in arrival order.

Output keeps the last 2000 lines / 50 KB; when cut, a notice says which lines are shown and
where the full output was saved (a temp file, written once the output passes 50 KB).
``on_update`` receives the (tail of the) output so far: at once for the first chunk, then at
most every ``update_interval`` seconds, and a last time with all of it before the result.

Exit code 0 returns the output (``(no output)`` if empty). Any other outcome raises, so the
model gets an error result: ``<output>\\n\\nCommand exited with code N``, ``... Command timed out
after N seconds``, ``... Command aborted`` or ``... Command was killed by signal SIGX``.

If the shell exits while a background process it started still holds the output pipe open,
the tool stops reading after ``drain_timeout`` seconds and returns; that process keeps running.
Spawning, killing and draining are ``autocue.process.run_process``.

Public: ``create_bash_tool(cwd, *, shell=None, env=None, command_prefix=None, drain_timeout=0.5,
update_interval=0.05)``, ``run_bash(script, cwd, ...)`` → ``BashRun`` (the same run without the
tool's error texts, for RPC ``bash``), ``default_shell()``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal as signals
import tempfile
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.llm.abort import AbortSignal
from autocue.llm.types import TextContent
from autocue.process import StopReason, run_process
from autocue.tools.common import ToolError
from autocue.tools.paths import StrPath
from autocue.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail

BASH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "Bash command to execute"},
        "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"},
    },
    "required": ["command"],
}

BASH_DESCRIPTION = (
    "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated "
    f"to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). If truncated, "
    "full output is saved to a temp file. Optionally provide a timeout in seconds."
)

_READ_SIZE = 64 * 1024
_KEEP_BYTES = DEFAULT_MAX_BYTES * 2


def default_shell() -> str:
    """``/bin/bash``, else ``bash`` on PATH, else ``sh``."""
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


class _Output:
    """Merged output: a rolling tail in memory, everything in a temp file once it is large."""

    __slots__ = ("chunks", "file", "kept", "newlines", "path", "total")

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.kept = 0
        self.total = 0
        self.newlines = 0
        self.path: str | None = None
        self.file: IO[bytes] | None = None

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.newlines += data.count(b"\n")
        if self.file is None and self.total > DEFAULT_MAX_BYTES:
            fd, self.path = tempfile.mkstemp(prefix="autocue-bash-", suffix=".log")
            self.file = os.fdopen(fd, "wb")
            for c in self.chunks:
                self.file.write(c)
        if self.file is not None:
            self.file.write(data)
        self.chunks.append(data)
        self.kept += len(data)
        # drop old chunks but never below _KEEP_BYTES, so the tail shown holds only whole lines
        while len(self.chunks) > 1 and self.kept - len(self.chunks[0]) >= _KEEP_BYTES:
            self.kept -= len(self.chunks.popleft())

    def close(self) -> None:
        if self.file is not None:
            self.file.close()

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")

    def render(self) -> tuple[str, dict[str, Any] | None]:
        """Final text (tail-truncated, with a notice) and details."""
        full = self.text()
        tr = truncate_tail(full)
        out = tr.content or "(no output)"
        if not tr.truncated and self.path is None:
            return out, None
        if self.path is None:  # cut by lines while small: everything is still in memory
            fd, self.path = tempfile.mkstemp(prefix="autocue-bash-", suffix=".log")
            with os.fdopen(fd, "wb") as f:
                f.writelines(self.chunks)
        total_lines = self.newlines + 1
        start = total_lines - tr.output_lines + 1
        where = f"Full output: {self.path}"
        if tr.last_line_partial:
            last = full.rsplit("\n", 1)[-1]
            size = format_size(len(last.encode("utf-8")))
            out += f"\n\n[Showing last {format_size(tr.output_bytes)} of line {total_lines} (line is {size}). {where}]"
        elif tr.truncated_by == "bytes" or (not tr.truncated and self.path):
            limit = format_size(DEFAULT_MAX_BYTES)
            out += f"\n\n[Showing lines {start}-{total_lines} of {total_lines} ({limit} limit). {where}]"
        else:
            out += f"\n\n[Showing lines {start}-{total_lines} of {total_lines}. {where}]"
        details: dict[str, Any] = {"truncation": tr.to_json(), "fullOutputPath": self.path}
        return out, details


@dataclass(slots=True)
class BashRun:
    """One finished command: ``text`` is the tail shown (with a notice when cut, ``(no output)``
    when empty), ``output`` the same tail without the notice, ``details`` the truncation
    details (None when nothing was cut), ``code`` the exit code (negative: killed by that
    signal), ``stopped`` why autocue stopped it (``timeout`` or ``abort``)."""

    text: str
    output: str
    details: dict[str, Any] | None
    code: int
    stopped: StopReason | None
    truncated: bool
    full_output_path: str | None


async def run_bash(
    script: str,
    cwd: StrPath,
    *,
    shell: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    signal: AbortSignal | None = None,
    on_update: OnUpdate | None = None,
    drain_timeout: float = 0.5,
    update_interval: float = 0.05,
) -> BashRun:
    """Run ``script`` with ``<shell> -c`` in ``cwd`` through ``autocue.process.run_process``.

    The output is kept as the tool keeps it (a rolling tail, everything in a temp file once
    large). A missing ``cwd`` or a shell that cannot start raises ``ToolError``.
    """
    workdir = os.fspath(cwd)
    if not os.path.isdir(workdir):
        raise ToolError(f"Working directory does not exist: {workdir}\nCannot execute bash commands.")
    loop = asyncio.get_running_loop()
    output = _Output()
    last_update = [-update_interval, False]  # [loop time of the last update, data not yet reported]

    def send_update() -> None:
        if on_update is None:
            return
        tr = truncate_tail(output.text())
        partial = {"truncation": tr.to_json(), "fullOutputPath": output.path} if tr.truncated else None
        last_update[0], last_update[1] = loop.time(), False
        on_update(ToolResult([TextContent(tr.content)], partial))

    def on_chunk(data: bytes) -> None:
        output.add(data)
        if loop.time() - last_update[0] >= update_interval:
            send_update()
        else:
            last_update[1] = True

    try:
        result = await run_process(
            [shell or default_shell(), "-c", script], cwd=workdir, env=env, on_stdout=on_chunk, merge_stderr=True,
            timeout=float(timeout) if timeout is not None else None, signal=signal, drain_timeout=drain_timeout,
        )
    except OSError as e:
        raise ToolError(f"Cannot start the shell: {e}") from None
    finally:
        output.close()
    if last_update[1]:  # the last update always shows all the output
        send_update()
    text, details = output.render()
    shown = truncate_tail(output.text()).content
    return BashRun(text, shown, details, result.code, result.stopped, details is not None, output.path)


def create_bash_tool(
    cwd: StrPath,
    *,
    shell: str | None = None,
    env: Mapping[str, str] | None = None,
    command_prefix: str | None = None,
    drain_timeout: float = 0.5,
    update_interval: float = 0.05,
) -> AgentTool:
    """The ``bash`` tool running commands in ``cwd``.

    ``shell`` defaults to ``default_shell()``; ``env`` replaces the inherited environment;
    ``command_prefix`` is put on its own line before every command (e.g. ``set -o pipefail``).
    ``update_interval``: see the module docstring.
    """
    workdir = os.fspath(cwd)

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        command: str = params["command"]
        timeout = params.get("timeout")
        if signal.aborted:
            raise ToolError("Command aborted")
        script = f"{command_prefix}\n{command}" if command_prefix else command
        run = await run_bash(
            script, workdir, shell=shell, env=env, timeout=timeout, signal=signal, on_update=on_update,
            drain_timeout=drain_timeout, update_interval=update_interval,
        )
        body = "" if run.text == "(no output)" else run.text
        sep = "\n\n" if body else ""
        if run.stopped == "timeout":
            raise ToolError(f"{body}{sep}Command timed out after {_secs(timeout)} seconds")
        if run.stopped is not None:
            raise ToolError(f"{body}{sep}Command aborted")
        if run.code < 0:
            code = -run.code
            name = signals.Signals(code).name if code in signals.valid_signals() else str(code)
            raise ToolError(f"{body}{sep}Command was killed by signal {name}")
        if run.code != 0:
            raise ToolError(f"{run.text}\n\nCommand exited with code {run.code}")
        return ToolResult([TextContent(run.text)], run.details)

    return AgentTool("bash", BASH_DESCRIPTION, BASH_PARAMETERS, execute, label="bash")


def _secs(timeout: Any) -> str:
    t = float(timeout)
    return str(int(t)) if t.is_integer() else str(t)
