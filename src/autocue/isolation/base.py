"""The sandbox provider interface: start a sandbox for one run, run programs in it, copy, stop.

A **provider** (``SandboxProvider``) says whether it can run here (``unavailable``) and starts a
``Sandbox`` for one run from a ``SandboxSpec`` (the workspace, the run's private state folder, the
mock server's port to reach from inside, an image). A **sandbox** runs a program the way
``autocue.process.spawn`` does (``exec``: in a new pseudo-terminal or with pipes, leading its own
process group, the same ``Child`` the executor drives for a local program), copies files in and
out, reports the egress its program tried (``egress``) and stops (``close``).

Most providers run a program through a local command that *is* the sandboxed program (``bwrap
... -- argv``, ``docker run ... argv``, ``kubectl exec ... -- argv``): they implement ``command``
(the wrapped argv, env and cwd) and inherit ``exec``. A provider whose programs are not local
processes overrides ``exec`` and returns its own ``Child``.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from autocue.isolation import inside
from autocue.process import Child, Terminal, spawn


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """What one run's sandbox holds and reaches."""

    workspace: Path
    """The program's working folder: writable inside, at the same path."""
    state_dir: Path
    """The run's private folder (the agent's HOME, its logs): writable inside, at the same path."""
    mock_port: int | None = None
    """The mock server's port on 127.0.0.1: the one address the program reaches (None: no server)."""
    image: str | None = None
    """A container image (container providers: the user's ``--sandbox-image`` or the profile's)."""


@dataclass(frozen=True, slots=True)
class Egress:
    """A destination the program tried to reach from its sandbox, and how often."""

    destination: str
    """``HOST:PORT`` of a TCP connection, ``dns:NAME`` of a DNS query, ``udp:HOST:PORT``, or a proxy's
    ``CONNECT`` / URL target."""
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"destination": self.destination, "count": self.count}


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A command as a local process runs it: the sandbox's own command line around the program's."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path


class Sandbox(ABC):
    """One run's sandbox (``SandboxProvider.start``)."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec

    @abstractmethod
    def command(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, terminal: bool) -> Wrapped:
        """The local command that runs ``argv`` inside the sandbox (``terminal``: it gets a pty)."""

    def exec(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, terminal: Terminal | None = None,
             stdin: int | None = subprocess.DEVNULL, stdout: int | None = subprocess.PIPE,
             stderr: int | None = subprocess.PIPE) -> Child:
        """Start ``argv`` inside, as ``autocue.process.spawn`` starts a local program (the same ``Child``)."""
        w = self.command(argv, env, cwd, terminal=terminal is not None)
        exe = shutil.which(w.argv[0], path=w.env.get("PATH")) if "/" not in w.argv[0] else w.argv[0]
        return spawn(w.argv, cwd=w.cwd, env=w.env, terminal=terminal, stdin=stdin, stdout=stdout, stderr=stderr,
                     executable=exe)

    def copy_in(self, src: Path, dest: str) -> None:
        """Copy the host's ``src`` to ``dest`` inside (here: the workspace and state folder are shared paths)."""
        _copy(src, Path(dest))

    def copy_out(self, src: str, dest: Path) -> None:
        """Copy ``src`` inside to the host's ``dest``."""
        _copy(Path(src), dest)

    def egress(self) -> list[Egress]:
        """What the program tried to reach besides the mock server (none reached it)."""
        return []

    def close(self) -> None:  # noqa: B027 (a sandbox without resources has nothing to stop)
        """Stop what the sandbox still runs and free its resources (idempotent)."""


@runtime_checkable
class SandboxProvider(Protocol):
    """A kind of sandbox: ``autocue run --sandbox NAME`` (an ``autocue.sandboxes`` entry point)."""

    name: str

    def unavailable(self) -> str | None:
        """Why it cannot run on this machine (one line), or None."""
        ...

    def start(self, spec: SandboxSpec) -> Sandbox:
        """A sandbox for one run (raises ``SandboxUnavailableError`` when it cannot start)."""
        ...


def _copy(src: Path, dest: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


class ControlDir:
    """A run's control folder, shared with the sandbox: ``mock.sock`` (the relay to the mock server, served
    here while the run lasts), ``watch.sock`` (where ``inside.py`` hands over its packet socket on the
    sandbox's ``lo``, read here) and ``egress.jsonl`` (the attempts seen)."""

    def __init__(self, mock_port: int | None) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="autocue-sbx-"))
        self.socket = self.path / "mock.sock"
        self.watch_socket = self.path / "watch.sock"
        self.log = self.path / "egress.jsonl"
        self.log.touch()
        self._log = self.log.open("a", encoding="utf-8")
        self._watches: list[inside.Watch] = []
        self._lock = threading.Lock()
        self._watcher = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._watcher.bind(str(self.watch_socket))
        self._watcher.listen(4)
        self._watcher.setblocking(False)
        os.chmod(self.watch_socket, 0o666)
        threading.Thread(target=self._take_watches, daemon=True, name="autocue-sandbox-watch").start()
        self._listener: socket.socket | None = None
        if mock_port is not None:
            self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._listener.bind(str(self.socket))
            self._listener.listen(64)
            os.chmod(self.socket, 0o666)  # a container user other than ours connects too

            def connect() -> socket.socket:
                return socket.create_connection(("127.0.0.1", mock_port))

            threading.Thread(target=inside.serve, args=(self._listener, connect), daemon=True,
                             name=f"autocue-sandbox-relay:{mock_port}").start()

    def _take_watches(self) -> None:
        """Take each packet socket a sandboxed ``inside.py`` hands over as it comes (a thread's body)."""
        while True:
            try:
                select.select([self._watcher], [], [])
            except (OSError, ValueError):
                return
            if not self._accept_pending():
                return

    def _accept_pending(self) -> bool:
        """Watch the packet sockets handed over and not taken yet; False once the watcher is closed."""
        with self._lock:
            while True:
                try:
                    conn, _ = self._watcher.accept()
                except BlockingIOError:
                    return True
                except OSError:
                    return False
                with conn:
                    conn.setblocking(True)
                    try:
                        _, fds, _, _ = socket.recv_fds(conn, 16, 1)
                    except OSError:
                        continue
                for fd in fds:
                    w = inside.Watch(self._log, socket.socket(fileno=fd))
                    self._watches.append(w)
                    w.start()

    def inside_args(self, mock_port: int | None) -> list[str]:
        """``inside.py``'s options for this run."""
        port = ["--port", str(mock_port), "--socket", str(self.socket)] if mock_port is not None else []
        return [*port, "--log", str(self.log), "--watch", str(self.watch_socket)]

    def egress(self) -> list[Egress]:
        """The attempts so far: the packets still queued are read first (the program has ended, or is still
        running: then more may come)."""
        self._accept_pending()  # one handed over a moment ago, before the thread took it
        with self._lock:
            watches = list(self._watches)
        for w in watches:
            w.drain()
        return read_egress(self.log)

    def notes(self) -> list[str]:
        out = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("note"), str):
                out.append(item["note"])
        return out

    def close(self) -> None:
        self._accept_pending()
        with self._lock:
            with contextlib.suppress(OSError):
                self._watcher.shutdown(socket.SHUT_RDWR)
            self._watcher.close()
            watches, self._watches = self._watches, []
        for w in watches:
            w.finish()
        # closing a packet socket waits for an RCU grace period (10 to 20 ms): not on the run's critical path
        socks = [w.sock for w in watches if w.sock is not None]
        if socks:
            threading.Thread(target=_close_all, args=(socks,), daemon=True, name="autocue-sandbox-watch-close").start()
        self._log.close()
        if self._listener is not None:
            with contextlib.suppress(OSError):  # shutdown wakes the relay's blocked accept (close alone does not)
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        if os.environ.get("AUTOCUE_SANDBOX_DEBUG"):
            print(self.log.read_text(encoding="utf-8", errors="replace"), file=sys.stderr)
        shutil.rmtree(self.path, ignore_errors=True)


def _close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        s.close()


def read_egress(log: Path) -> list[Egress]:
    """The attempts of an ``inside.py`` log, counted per destination, in first-seen order."""
    counts: Counter[str] = Counter()
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("destination"), str):
            counts[item["destination"]] += 1
    return [Egress(d, n) for d, n in counts.items()]


INSIDE = Path(inside.__file__)
"""``inside.py``, the first process of a sandbox with a private network (runnable as a file)."""
