"""The built-in sandbox providers: ``none``, ``bwrap``, ``docker`` and ``podman``."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from autocue.isolation.base import INSIDE, ControlDir, Egress, Sandbox, SandboxSpec, Wrapped
from autocue.isolation.errors import SandboxUnavailableError
from autocue.isolation.proxy import RefusingProxy


# ---------------------------------------------------------------------------------------------- none
class _Unsandboxed(Sandbox):
    """The program runs as a local process; its proxy variables point at a refusing proxy."""

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.proxy = RefusingProxy()

    def command(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, terminal: bool) -> Wrapped:
        return Wrapped(list(argv), {**env, **self.proxy.env}, cwd)

    def egress(self) -> list[Egress]:
        return [Egress(d, n) for d, n in self.proxy.counts.items()]

    def close(self) -> None:
        self.proxy.close()


class NoSandbox:
    """``--sandbox none`` (the default): today's local process, with the refusing proxy."""

    name = "none"

    def unavailable(self) -> str | None:
        return None

    def start(self, spec: SandboxSpec) -> Sandbox:
        return _Unsandboxed(spec)


# --------------------------------------------------------------------------------------------- bwrap
def private_home(env: Mapping[str, str], spec: SandboxSpec) -> dict[str, str]:
    """``env`` with a HOME that is writable inside: its own when under the state folder, else ``state/home``."""
    home = env.get("HOME", "")
    state = str(spec.state_dir)
    if home and (home == state or home.startswith(state + os.sep)):
        return dict(env)
    own = spec.state_dir / "home"
    own.mkdir(parents=True, exist_ok=True)
    return {**env, "HOME": str(own)}


_DEAF = ("sh", "-c", "trap '' INT QUIT TERM HUP; exec \"$@\"", "sh")
"""bwrap shares the program's process group: a Ctrl-C typed, or the runner's SIGTERM, must reach the program
and not kill bwrap (which would take the program down at once). Ignored here, the signals stay ignored in
bwrap; ``inside.py`` handles them itself, so the program starts with their default actions."""


class _Bwrap(Sandbox):
    def __init__(self, spec: SandboxSpec, bwrap: str) -> None:
        super().__init__(spec)
        self.bwrap = bwrap
        self.ctl = ControlDir(spec.mock_port)

    def command(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, terminal: bool) -> Wrapped:
        s = self.spec
        binds: list[str] = []
        for path in dict.fromkeys((s.state_dir, s.workspace, self.ctl.path)):  # the order: parents first
            binds += ["--bind", str(path), str(path)]
        box = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *binds,
               "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent",
               "--cap-drop", "ALL", "--cap-add", "CAP_NET_ADMIN", "--cap-add", "CAP_NET_RAW", "--cap-add",
               "CAP_NET_BIND_SERVICE", "--cap-add", "CAP_SETPCAP", "--chdir", str(cwd), "--"]
        first = [sys.executable, "-I", "-S", str(INSIDE), *self.ctl.inside_args(s.mock_port), "--"]
        return Wrapped([*_DEAF, *box, *first, *argv], private_home(env, s), cwd)

    def egress(self) -> list[Egress]:
        return self.ctl.egress()

    def close(self) -> None:
        self.ctl.close()


class BwrapProvider:
    """``--sandbox bwrap``: bubblewrap, read-only host root, a private network reaching only the mock server."""

    name = "bwrap"

    def unavailable(self) -> str | None:
        exe = shutil.which("bwrap")
        if exe is None:
            return "bubblewrap is not installed (`apt-get install bubblewrap`)"
        return _bwrap_works(exe)

    def start(self, spec: SandboxSpec) -> Sandbox:
        why = self.unavailable()
        if why is not None:
            raise SandboxUnavailableError(f"--sandbox bwrap: {why}")
        return _Bwrap(spec, shutil.which("bwrap") or "bwrap")


@functools.cache
def _bwrap_works(exe: str) -> str | None:
    """None when bwrap can make a user and network namespace here, else its error (checked once)."""
    r = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-user", "--unshare-net", "--", "true"],
                       capture_output=True, text=True, check=False)
    if r.returncode == 0:
        return None
    return f"bwrap cannot create namespaces here: {r.stderr.strip() or r.returncode} (user namespaces disabled?)"


# ------------------------------------------------------------------------------------ docker, podman
_HOST_ONLY = ("PATH", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "LD_LIBRARY_PATH", "TMPDIR")


class _Container(Sandbox):
    """One ``ENGINE run --rm`` per program: no network (``--network none``), the workspace, the state folder
    and the control folder mounted at their host paths, ``inside.py`` as its first process."""

    def __init__(self, spec: SandboxSpec, engine: str, image: str) -> None:
        super().__init__(spec)
        self.engine, self.image = engine, image
        self.ctl = ControlDir(spec.mock_port)
        self.names: list[str] = []

    def command(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, terminal: bool) -> Wrapped:
        s = self.spec
        name = f"autocue-{uuid.uuid4().hex[:12]}"
        self.names.append(name)
        envfile = self.ctl.path / f"{name}.env"
        inner = private_home(env, s)
        envfile.write_text("".join(f"{k}={v}\n" for k, v in inner.items()
                                   if k not in _HOST_ONLY and "\n" not in v), encoding="utf-8")
        mounts: list[str] = []
        for path in dict.fromkeys((s.state_dir, s.workspace, self.ctl.path)):
            mounts += ["-v", f"{path}:{path}"]
        run = [self.engine, "run", "--rm", "-i", *(["-t"] if terminal else []), "--name", name, "--network", "none",
               "--cap-add", "NET_ADMIN", "--cap-add", "NET_RAW", "--cap-add", "NET_BIND_SERVICE",
               "--env-file", str(envfile), *mounts,
               "-v", f"{INSIDE}:/autocue-inside.py:ro", "-w", str(cwd), self.image,
               "python3", "/autocue-inside.py", *self.ctl.inside_args(s.mock_port), "--", *argv]
        return Wrapped(run, {k: v for k, v in env.items() if k in ("PATH", "HOME", "DOCKER_HOST", "XDG_RUNTIME_DIR",
                                                                   "CONTAINER_HOST")}, cwd)

    def egress(self) -> list[Egress]:
        return self.ctl.egress()

    def close(self) -> None:
        for name in self.names:  # a killed client leaves its container running: remove it
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                subprocess.run([self.engine, "rm", "-f", name], capture_output=True, check=False, timeout=30)
        self.names.clear()
        self.ctl.close()


class ContainerProvider:
    """``--sandbox docker`` / ``podman``: the image of ``--sandbox-image``, else the launch profile's ``image``
    (it needs ``python3``)."""

    def __init__(self, engine: str) -> None:
        self.name = engine

    def unavailable(self) -> str | None:
        exe = shutil.which(self.name)
        if exe is None:
            return f"the `{self.name}` command is not installed"
        return _engine_works(exe, self.name)

    def start(self, spec: SandboxSpec) -> Sandbox:
        if not spec.image:
            raise SandboxUnavailableError(f"--sandbox {self.name} needs an image: pass --sandbox-image IMAGE (one "
                                          "with python3 and the agent CLI installed)")
        why = self.unavailable()
        if why is not None:
            raise SandboxUnavailableError(f"--sandbox {self.name}: {why}")
        return _Container(spec, shutil.which(self.name) or self.name, spec.image)


@functools.cache
def _engine_works(exe: str, name: str) -> str | None:
    """None when ``ENGINE info`` answers, else why not (no engine running, ...)."""
    try:
        r = subprocess.run([exe, "info"], capture_output=True, text=True, timeout=20, check=False)
    except subprocess.TimeoutExpired:
        return f"`{name} info` did not answer in 20 s"
    if r.returncode == 0:
        return None
    last = next((ln.strip() for ln in reversed(r.stderr.splitlines()) if ln.strip()), f"exit code {r.returncode}")
    return f"`{name} info` fails: no engine ({last})"


NONE = NoSandbox()
BWRAP = BwrapProvider()
DOCKER = ContainerProvider("docker")
PODMAN = ContainerProvider("podman")
