"""The ``grep`` tool: search file contents with a regex (or literal text).

Arguments ``{pattern, path?, glob?, ignoreCase?, literal?, context?, limit?}``. Output lines are
``path:N: text`` for matches and ``path-N- text`` for context lines; paths are relative to
the searched directory (the base name when a single file is searched). At most ``limit``
matches (default 100), 50 KB of output, lines cut at 500 characters, each with a notice.

Two backends give the same output: ripgrep (``rg``, on PATH or beside the Python
interpreter) and a pure-Python one. Both search hidden files, skip ``.git``, binary files and
what the ``.gitignore``/``.ignore``/``.rgignore`` files below the searched directory exclude,
and report files in path order (deterministic). Choose with ``backend=`` ("auto", "rg",
"python") or the ``AUTOCUE_GREP_BACKEND`` environment variable (read when "auto").
Regexes follow the backend's dialect (Rust regex for rg, Python ``re`` otherwise); the common
syntax is the same.

Public: ``create_grep_tool(cwd, *, backend="auto")``, ``find_ripgrep()``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.globs import PathGlob
from autocue.llm.abort import AbortController, AbortSignal
from autocue.process import run_process
from autocue.tools.common import ABORTED, ToolError, check_aborted, opt_int
from autocue.tools.listing import listing_result
from autocue.tools.paths import StrPath, resolve_to_cwd
from autocue.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    truncate_line,
)
from autocue.tools.walk import walk

Backend = Literal["auto", "rg", "python"]
DEFAULT_GREP_LIMIT = 100
BACKEND_ENV = "AUTOCUE_GREP_BACKEND"

GREP_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
        "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
        "glob": {"type": "string", "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},
        "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
        "literal": {
            "type": "boolean",
            "description": "Treat pattern as literal string instead of regex (default: false)",
        },
        "context": {
            "type": "number",
            "description": "Number of lines to show before and after each match (default: 0)",
        },
        "limit": {
            "type": "number",
            "description": f"Maximum number of matches to return (default: {DEFAULT_GREP_LIMIT})",
        },
    },
    "required": ["pattern"],
}

GREP_DESCRIPTION = (
    "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects "
    f".gitignore. Output is truncated to {DEFAULT_GREP_LIMIT} matches or {DEFAULT_MAX_BYTES // 1024}KB "
    f"(whichever is hit first). Long lines are truncated to {GREP_MAX_LINE_LENGTH} chars."
)


def find_ripgrep() -> str | None:
    """``rg`` on PATH, else an ``rg`` installed beside the running Python (a venv's bin)."""
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / "rg"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the "line" after the final newline is not a line
    return lines


class _Search:
    """One search's settings and its collected matches ``(absolute path, line number)``."""

    def __init__(self, params: dict[str, Any], cwd: StrPath) -> None:
        self.pattern: str = params["pattern"]
        self.root = resolve_to_cwd(params.get("path") or ".", cwd)
        self.glob: str | None = params.get("glob") or None
        self.ignore_case = bool(params.get("ignoreCase"))
        self.literal = bool(params.get("literal"))
        ctx = opt_int(params, "context") or 0
        self.context = max(0, ctx)
        self.limit = max(1, opt_int(params, "limit") or DEFAULT_GREP_LIMIT)
        try:
            self.is_dir = self.root.is_dir()
            exists = self.is_dir or self.root.exists()
        except OSError:
            exists = False
        if not exists:
            raise ToolError(f"Path not found: {self.root}")
        self.matches: list[tuple[str, int]] = []
        self.limit_reached = False

    def add(self, path: str, line_no: int) -> bool:
        """Record a match; False once the limit is reached."""
        self.matches.append((path, line_no))
        if len(self.matches) >= self.limit:
            self.limit_reached = True
            return False
        return True

    def display(self, path: str) -> str:
        if self.is_dir:
            rel = os.path.relpath(path, self.root)
            if rel and not rel.startswith(".."):
                return rel.replace(os.sep, "/")
        return os.path.basename(path)

    def render(self) -> ToolResult:
        if not self.matches:
            return ToolResult.text("No matches found")
        cache: dict[str, list[str]] = {}
        out: list[str] = []
        cut = False
        for path, no in self.matches:
            lines = cache.get(path)
            if lines is None:
                lines = cache[path] = _read_lines(path)
            shown = self.display(path)
            if not lines:
                out.append(f"{shown}:{no}: (unable to read file)")
                continue
            lo = max(1, no - self.context)
            hi = min(len(lines), no + self.context)
            for cur in range(lo, hi + 1):
                text, was_cut = truncate_line(lines[cur - 1] if cur <= len(lines) else "")
                cut = cut or was_cut
                out.append(f"{shown}:{cur}: {text}" if cur == no else f"{shown}-{cur}- {text}")
        limit = self.limit
        return listing_result(
            out,
            (f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern",
             "matchLimitReached", limit) if self.limit_reached else None,
            (f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines",
             "linesTruncated", True) if cut else None,
        )


# ------------------------------------------------------------------------------- python backend


def _python_search(s: _Search, signal: AbortSignal) -> None:
    flags = re.IGNORECASE if s.ignore_case else 0
    try:
        rx = re.compile(re.escape(s.pattern) if s.literal else s.pattern, flags)
    except re.error as e:
        raise ToolError(
            f"Invalid regex pattern {s.pattern!r}: {e}. Fix the pattern or pass literal=true to search the text as is."
        ) from None
    glob = PathGlob(s.glob) if s.glob else None
    files: Iterator[str]
    if s.is_dir:
        entries = walk(str(s.root), override=glob.override if glob else None, should_stop=lambda: signal.aborted)
        files = (e.path for e in entries if not e.is_dir)
    else:
        files = iter([str(s.root)])
    for path in files:
        if signal.aborted:
            return
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data:  # binary, as rg skips it
            continue
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for i, line in enumerate(lines, 1):
            if rx.search(line.rstrip("\r") if line.endswith("\r") else line) and not s.add(path, i):
                return


# ------------------------------------------------------------------------------------ rg backend


async def _rg_search(s: _Search, rg: str, signal: AbortSignal) -> None:
    args = [
        rg,
        "--json",
        "--line-number",
        "--color=never",
        "--hidden",
        "--sort",
        "path",
        "--no-config",
        "--no-require-git",
        "--no-ignore-global",
        "--no-ignore-parent",
        "--no-ignore-exclude",
        "--glob",
        "!.git",
    ]
    if s.ignore_case:
        args.append("--ignore-case")
    if s.literal:
        args.append("--fixed-strings")
    if s.glob:
        args += ["--glob", s.glob]
    # rg matches --glob against paths as it prints them, so a directory is searched as "." from inside it
    root = str(s.root)
    args += ["--regexp", s.pattern, "--", "." if s.is_dir else root]
    # ripgrep runs through the process runner; it stops (its group killed) on the caller's abort or
    # once enough matches were found
    stop = AbortController()
    remove = signal.add_listener(stop.abort)
    pending = bytearray()
    err: list[bytes] = []

    def on_line(raw: bytes) -> None:
        if stop.signal.aborted or not raw.startswith(b'{"type":"match"'):
            return
        data = json.loads(raw)["data"]
        path = data.get("path", {}).get("text")
        no = data.get("line_number")
        if path is not None and isinstance(no, int) and not s.add(os.path.normpath(os.path.join(root, path)), no):
            stop.abort()

    def on_stdout(chunk: bytes) -> None:
        pending.extend(chunk)
        *lines, rest = pending.split(b"\n")
        pending[:] = rest
        for line in lines:
            on_line(bytes(line))

    try:
        result = await run_process(args, cwd=root if s.is_dir else None, on_stdout=on_stdout, on_stderr=err.append,
                                   signal=stop.signal)
    finally:
        remove()
    on_line(bytes(pending))
    if signal.aborted:
        raise ToolError(ABORTED)
    if result.stopped is None and result.code not in (0, 1):
        stderr = b"".join(err).decode("utf-8", "replace").strip()
        raise ToolError(stderr or f"ripgrep exited with code {result.code}")


def create_grep_tool(cwd: StrPath, *, backend: Backend = "auto") -> AgentTool:
    """The ``grep`` tool searching relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        search = _Search(params, cwd)
        choice = backend if backend != "auto" else os.environ.get(BACKEND_ENV, "auto")
        rg = find_ripgrep() if choice in ("auto", "rg") else None
        if choice == "rg" and rg is None:
            raise ToolError("ripgrep (rg) is not installed: install it or use the python grep backend")
        if rg is not None:
            await _rg_search(search, rg, signal)
        else:
            await asyncio.to_thread(_python_search, search, signal)
        check_aborted(signal)
        return search.render()

    return AgentTool("grep", GREP_DESCRIPTION, GREP_PARAMETERS, execute, label="grep")
