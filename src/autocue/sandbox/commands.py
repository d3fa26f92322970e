"""The commands the sandbox check runs: finding ``uv``, running a command, the cache directory.

``find_uv()`` looks on ``PATH`` first, then for the binary the ``uv`` Python package ships
(``uv.find_uv_bin()``). ``run(...)`` runs a command with captured output and a clean,
offline-leaning environment (no ``PYTHONPATH``, pip and uv configuration files ignored).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from autocue.process import capture_sync

Installer = Literal["auto", "uv", "pip"]

PYTHON_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "CONDA_PREFIX")
"""What no sandbox command inherits: the running interpreter's paths and environment."""
_INDEX_ENV = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
              "UV_INDEX", "UV_FIND_LINKS")
_QUIET_ENV = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def find_uv() -> str | None:
    """The ``uv`` executable: on ``PATH``, else the one the ``uv`` Python package ships; else None."""
    on_path = shutil.which("uv")
    if on_path:
        return on_path
    try:
        import uv  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        found = str(uv.find_uv_bin())
    except Exception:  # the package is there but its binary is not
        return None
    return found if os.path.isfile(found) else None


def pick_uv(installer: Installer) -> str | None:
    """The uv binary to use for ``installer`` (None means the standard tools: build, venv, pip)."""
    if installer == "pip":
        return None
    uv = find_uv()
    if uv is None and installer == "uv":
        raise FileNotFoundError(
            "installer='uv' was asked for but uv is neither on PATH nor installed as the 'uv' Python package; "
            "install it (pip install uv) or use installer='auto'"
        )
    return uv


def default_cache_dir() -> Path:
    """``$AUTOCUE_CACHE_DIR/sandbox``, else ``$XDG_CACHE_HOME/autocue/sandbox``, else ``~/.cache/autocue/sandbox``."""
    env = os.environ.get("AUTOCUE_CACHE_DIR")
    if env:
        return Path(env).expanduser() / "sandbox"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "autocue" / "sandbox"


def command_env(drop: Sequence[str], settings: Mapping[str, str], extra: Mapping[str, str] | None) -> dict[str, str]:
    """The running environment without ``drop``, with ``settings``, pip's quiet, non-interactive
    settings and ``extra`` (in that order: later wins)."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(settings)
    env.update(_QUIET_ENV)
    env.update(extra or {})
    return env


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for sandbox commands: no ``PYTHONPATH``/index settings, config files ignored."""
    return command_env(PYTHON_ENV + _INDEX_ENV, {"PIP_CONFIG_FILE": os.devnull, "UV_NO_CONFIG": "1"}, extra)


@dataclass
class CommandResult:
    args: list[str]
    returncode: int
    output: str
    """stdout and stderr, interleaved."""
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def shown(self) -> str:
        return "$ " + " ".join(self.args) + "\n" + self.output


def run(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout: float,
) -> CommandResult:
    """Run ``args`` with output captured (``autocue.process.capture_sync``): a timeout kills the
    process group, as does an interrupt (which propagates); nothing it started outlives it."""
    argv = [str(a) for a in args]
    try:
        res = capture_sync(argv, cwd=os.fspath(cwd), env=env, merge_stderr=True, timeout=timeout, end_group=True)
    except OSError as e:
        return CommandResult(argv, -1, f"{type(e).__name__}: {e}")
    text = res.stdout
    if res.stopped == "timeout":
        return CommandResult(argv, -1, text + f"\n(timed out after {timeout:g} s)", timed_out=True)
    return CommandResult(argv, res.code, text)


def venv_python(venv: Path) -> Path:
    """The interpreter of a virtual environment."""
    return venv / "Scripts" / "python.exe" if sys.platform == "win32" else venv / "bin" / "python"


__all__ = [
    "PYTHON_ENV", "CommandResult", "Installer", "clean_env", "command_env", "default_cache_dir", "find_uv", "pick_uv",
    "run", "venv_python",
]
