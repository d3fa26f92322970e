"""Resolving tool paths against the tools' working directory.

Like pi: a leading ``@`` is dropped (models copy it from mentions), odd Unicode spaces become
plain spaces, ``~`` and ``~/...`` expand to the home directory, absolute paths are used as
they are and relative paths are joined to ``cwd``. ``..`` is resolved lexically; symlinks
are left alone.

Public: ``expand_path``, ``resolve_to_cwd``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

StrPath = str | os.PathLike[str]

_ODD_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def expand_path(path: str) -> str:
    p = path[1:] if path.startswith("@") else path
    p = _ODD_SPACES.sub(" ", p)
    if p == "~":
        return str(Path.home())
    if p.startswith("~/"):
        return str(Path.home()) + p[1:]
    return p


def resolve_to_cwd(path: str, cwd: StrPath) -> Path:
    """The absolute path a tool argument names."""
    p = expand_path(path)
    if os.path.isabs(p):
        return Path(os.path.normpath(p))
    return Path(os.path.normpath(os.path.join(os.fspath(cwd), p)))

