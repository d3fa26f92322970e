"""Shell commands and argument helpers the CLIs' tool mappings share: a scenario's ``grep``,
``find``, ``listDir``, ``sed``, ``readFile``, ``writeFile`` and ``editFile`` as one command line,
for CLIs that run them through their shell tool (Codex for everything, Claude Code 2.1 for search)."""

from __future__ import annotations

import shlex
from typing import Any

from autocue.catalog.tools import Args


def q(s: Any) -> str:
    return shlex.quote(str(s))


def cd(cmd: str, cwd: Any) -> str:
    """``cmd`` run in ``cwd`` (as it is when ``cwd`` is empty or ``.``)."""
    if cwd in (None, "", "."):
        return cmd
    return f"cd {q(cwd)} && {cmd}"


def grep_cmd(a: Args) -> str:
    flags = "-rn"
    if a.get("-i"):
        flags += "i"
    parts = ["grep", flags]
    for opt in ("-A", "-B", "-C"):
        if a.get(opt) is not None:
            parts += [opt, str(a[opt])]
    if a.get("glob"):
        parts.append(f"--include={q(a['glob'])}")
    if a.get("output_mode") == "files_with_matches":
        parts.append("-l")
    elif a.get("output_mode") == "count":
        parts.append("-c")
    parts += ["--", q(a["pattern"]), q(a.get("path") or ".")]
    cmd = " ".join(parts)
    if a.get("head_limit"):
        cmd += f" | head -n {int(a['head_limit'])}"
    return cmd


def find_cmd(a: Args) -> str:
    parts = ["find", q(a.get("path") or ".")]
    if a.get("name") or a.get("pattern"):
        parts += ["-name", q(a.get("name") or a.get("pattern"))]
    t = a.get("type")
    if t in ("file", "f"):
        parts += ["-type", "f"]
    elif t in ("dir", "d", "directory"):
        parts += ["-type", "d"]
    return " ".join(parts)


def ls_cmd(a: Args) -> str:
    return ("ls -laR " if a.get("recursive") else "ls -la ") + q(a.get("path") or ".")


def sed_cmd(a: Args) -> str:
    inplace = "-i " if a.get("inplace", True) else ""
    return f"sed {inplace}-e {q(a['expression'])} {q(a['path'])}"


def read_cmd(a: Args) -> str:
    path = q(a["path"])
    offset, limit = a.get("offset"), a.get("limit")
    if offset is None and limit is None:
        return f"cat -- {path}"
    start = int(offset or 1)
    end = f"{start + int(limit) - 1}" if limit is not None else "$"
    return f"sed -n '{start},{end}p' -- {path}"


def write_cmd(a: Args) -> str:
    path = str(a["path"])
    prefix = f"mkdir -p {q(path.rsplit('/', 1)[0])} && " if "/" in path.strip("/") else ""
    return f"{prefix}printf '%s' {q(a.get('content', ''))} > {q(path)}"


_EDIT_PY = (
    "import sys,pathlib;p=pathlib.Path(sys.argv[1]);s=p.read_text();o,n=sys.argv[2],sys.argv[3];"
    "c=s.count(o);sys.exit('old_string not found in '+sys.argv[1]) if c==0 else None;"
    "p.write_text(s.replace(o,n) if sys.argv[4]=='1' else s.replace(o,n,1))"
)


def edit_cmd(a: Args) -> str:
    all_ = "1" if a.get("replace_all") else "0"
    return f"python3 -c {q(_EDIT_PY)} {q(a['path'])} {q(a['old_string'])} {q(a['new_string'])} {all_}"


def glob_pattern(a: Args, *, listing: bool) -> str:
    """A glob for a scenario ``find`` (``listing=False``: its name anywhere below) or ``listDir``."""
    if listing:
        if a.get("pattern"):
            return str(a["pattern"])
        return "**/*" if a.get("recursive") else "*"
    name = a.get("name") or a.get("pattern") or "*"
    return name if "/" in str(name) else f"**/{name}"


def some(d: Args) -> Args:
    """``d`` without ``None`` values."""
    return {k: v for k, v in d.items() if v is not None}


def cwd(a: Args) -> Any:
    """A scenario call's ``cwd``, None for the workspace itself."""
    c = a.get("cwd")
    return None if c in ("", ".") else c
