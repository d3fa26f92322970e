"""``autocue record --via acp``: the user's side of a recorded run over the agent's ACP server.

The launch is the profile's ACP command (``runner.launch.build(..., via="acp")``: the same env and files
as ``autocue run --via acp``); it starts in its own process group with pipes (``autocue.process.spawn``)
and this driver is its ACP client, with the runner's host (``runner.acp_client_host``: every permission
allowed, ``fs/*`` on the workspace, ``terminal/*`` as real processes). The prompt and each ``--input``
are one ``session/prompt`` each; a turn ends when the agent answers it (no idle guessing as in the
TUI), then the workspace is snapshot. Replay the scenario with ``autocue run FILE --via acp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from typing import TYPE_CHECKING, Any, Protocol

from autocue.record.errors import RunCaptureError

if TYPE_CHECKING:
    from pathlib import Path

    from autocue.process import Child


class Session(Protocol):
    """What this driver uses of ``autocue.record.run_capture.Session`` (which imports this module)."""

    options: Any
    launch: Any
    choice: Any
    workspace: Path
    deadline: float
    prog: Any

    def replies(self) -> int: ...
    def snap(self) -> None: ...

STREAM_LIMIT = 50 * 1024 * 1024
"""Bytes of one JSON-RPC line at most (the ``acp`` library's default for stdio)."""
EXIT_GRACE = 2.0
"""Seconds the ACP server is given to exit once its stdin is closed, before its group is stopped."""


class AcpProgram:
    """The ACP server being recorded, as ``Session.prog`` (``close``, ``exit_code``, ``exited``, ``last_screen``)."""

    def __init__(self, child: Child) -> None:
        self.child = child
        self.text: list[str] = []
        """What the agent streamed (``agent_message_chunk`` texts), for messages."""

    @property
    def exited(self) -> bool:
        return self.child.poll() is not None

    @property
    def exit_code(self) -> int | None:
        return None  # the recorder ends the server: its status says nothing about the run

    def last_screen(self) -> str:
        return "".join(self.text)[-2000:]

    def close(self) -> None:
        if self.child.poll() is None:
            self.child.stop(1.0, lambda s: self.child.reap(s) is not None)


def drive_acp(s: Session) -> list[int]:
    """Start the ACP server, prompt it with the prompt and each ``--input``, snapshot after each answer."""
    from autocue.process import spawn

    try:
        child = spawn(s.launch.argv, cwd=s.workspace, env=s.launch.env, stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as e:
        raise RunCaptureError(f"{e} (the ACP server to record: {s.launch.argv[0]})") from None
    s.prog = AcpProgram(child)
    return asyncio.run(_session(s, s.prog))


async def _session(s: Session, prog: AcpProgram) -> list[int]:
    from acp import PROTOCOL_VERSION, text_block
    from acp.client.connection import ClientSideConnection
    from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

    from autocue import __version__
    from autocue.runner.acp_client_host import Host, client_for

    proc = prog.child.proc
    assert proc.stdout is not None and proc.stdin is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), proc.stdout)
    wt, wp = await loop.connect_write_pipe(lambda: asyncio.streams.FlowControlMixin(), proc.stdin)
    writer = asyncio.StreamWriter(wt, wp, None, loop)  # type: ignore[arg-type]
    host = Host(s.workspace, dict(s.launch.env), "allow", {})

    conn = ClientSideConnection(client_for(host), writer, reader, observers=[lambda ev: _watch(ev, prog)])
    agent = s.choice.agent
    fs = agent is None or agent.acp is None or agent.acp.client_fs
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=True)
    doing = "initialize"
    ends: list[int] = []
    try:
        await _call(s, doing, conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps,
                                              client_info=Implementation(name="autocue", version=__version__)))
        doing = "session/new"
        new = await _call(s, doing, conn.new_session(cwd=str(s.workspace.resolve()), mcp_servers=[]))
        for text in [s.options.prompt, *s.options.inputs]:
            doing = f"session/prompt {text[:40]!r}"
            await _call(s, doing, conn.prompt(session_id=new.session_id, prompt=[text_block(text)]))
            ends.append(s.replies())
            s.snap()
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.close(), 2.0)
        end = time.monotonic() + EXIT_GRACE
        while prog.child.poll() is None and time.monotonic() < end:
            await asyncio.sleep(0.05)
        prog.close()
        await host.close()  # the terminals it asked for
    return ends


def _watch(ev: Any, prog: AcpProgram) -> None:
    """A message on the connection: the text the agent streams is kept (for the one-line errors)."""
    msg = ev.message
    if isinstance(msg, dict) and msg.get("method") == "session/update":
        update = (msg.get("params") or {}).get("update") or {}
        if update.get("sessionUpdate") == "agent_message_chunk":
            prog.text.append(str((update.get("content") or {}).get("text") or ""))


async def _call(s: Session, doing: str, coro: Any) -> Any:
    """``coro`` (a request to the agent) within the run's deadline; an error or exit is one line."""
    from acp import RequestError

    left = s.deadline - time.monotonic()
    try:
        return await asyncio.wait_for(coro, max(left, 0.01))
    except TimeoutError:
        raise RunCaptureError(f"the ACP server did not answer {doing} within --timeout "
                              f"{s.options.timeout:g} s") from None
    except RequestError as e:
        raise RunCaptureError(f"the ACP server answered {doing} with error {e.code}: {e}") from None
    except (ConnectionError, asyncio.IncompleteReadError, RuntimeError) as e:
        raise RunCaptureError(f"the ACP server ended the connection during {doing} ({e})") from None
