"""The package index the user configured, for a sandbox build that has to fetch its build requirements.

``configured_sources()`` lists what pip would use here (``pip config list``, which includes
the ``PIP_*`` environment variables: ``index-url``, else PyPI, plus ``extra-index-url`` and
``find-links``); without pip, uv's ``UV_*`` variables (else PyPI). ``reachable(source)`` asks
whether one answers (a directory that exists; an HTTP server that replies within a few
seconds, through the same proxy settings the installers use). ``index_env()`` is the
environment that keeps that configuration (``clean_env`` drops it on purpose).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from autocue.sandbox.commands import PYTHON_ENV, command_env, run

PYPI = "https://pypi.org/simple"


def index_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The running environment with the user's pip/uv index configuration kept (no PYTHONPATH)."""
    return command_env(PYTHON_ENV, {}, extra)


def pip_available() -> bool:
    return importlib.util.find_spec("pip") is not None


def configured_sources(env: Mapping[str, str] | None = None) -> list[str]:
    """Index URLs and find-links locations a build would download from, as configured here."""
    env = index_env() if env is None else env
    values: dict[str, list[str]] = {}
    if pip_available():
        res = run([sys.executable, "-m", "pip", "config", "list"], cwd=os.getcwd(), env=env, timeout=60)
        for line in res.output.splitlines() if res.ok else []:
            key, sep, raw = line.partition("=")
            if not sep:
                continue
            name = key.rsplit(".", 1)[-1].strip()
            try:
                items = shlex.split(raw.strip().strip("'\""))
            except ValueError:
                items = raw.split()
            values.setdefault(name, []).extend(items)
        no_index = "no-index" in values and values["no-index"][:1] not in (["false"], ["0"], ["no"])
        index = [] if no_index else (values.get("index-url") or [PYPI])[-1:]
        extra = [] if no_index else values.get("extra-index-url", [])
        out = [*index, *extra, *values.get("find-links", [])]
    else:
        default = env.get("UV_DEFAULT_INDEX") or env.get("UV_INDEX_URL") or PYPI
        out = [default, *env.get("UV_INDEX", "").split(), *env.get("UV_EXTRA_INDEX_URL", "").split(),
               *env.get("UV_FIND_LINKS", "").replace(",", " ").split()]
    return [s for s in dict.fromkeys(out) if s]  # each once, in order


def reachable(source: str, *, timeout: float = 5.0) -> bool:
    """Does ``source`` (an index URL, a find-links URL or directory) answer?"""
    parsed = urlparse(source)
    if parsed.scheme in ("", "file"):
        return Path(unquote(parsed.path) if parsed.scheme else source).expanduser().exists()
    if parsed.scheme not in ("http", "https"):
        return False
    try:
        with urllib.request.urlopen(urllib.request.Request(source, method="GET"), timeout=timeout):
            return True
    except urllib.error.HTTPError as e:
        return e.code < 500 and e.code != 407  # the index answered; a proxy's refusal or a gateway error does not count
    except (OSError, ValueError):
        return False


__all__ = ["PYPI", "configured_sources", "index_env", "pip_available", "reachable"]
