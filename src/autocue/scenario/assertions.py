"""Typed ``assert`` steps and their evaluation against a workspace.

``AssertSpec`` is what a scenario ``assert:`` block loads into (and what a compiled
``Check.spec`` holds). ``evaluate_assert(spec, root, text=...)`` runs every check (never
short-circuits) and returns an ``AssertReport`` with one ``AssertResult`` per check
(``passed``, ``expected``, ``actual``), so a runner can fail loudly and show why.

Checks: ``fs.exists`` / ``fs.notExists`` (paths relative to ``root`` unless absolute; a failure
names ``root``, the workspace it looked in), ``fs.contents`` (``{path: text}``: the file holds
exactly that UTF-8 text) and ``fs.sha256`` (``{path: hex}``: the SHA-256 of its bytes; what
``autocue record --agent`` writes for files over its size limit),
``text.contains`` (in ``text``: a terminal buffer or transcript the runner supplies),
``json.file`` (``{path, pointer, equals}``, RFC 6901 pointer), ``git.commit``
(``{messageContains}`` against ``git log -1``). Keys a runner adds are kept in ``extra``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.scenario.errors import Pos
from autocue.scenario.pointer import MISSING, resolve_pointer


@dataclass(frozen=True, slots=True)
class JsonFileCheck:
    path: str
    pointer: str = ""
    equals: Any = None


@dataclass(frozen=True, slots=True)
class GitCommitCheck:
    message_contains: str


@dataclass(slots=True)
class AssertSpec:
    """One ``assert`` step."""

    fs_exists: list[str] = field(default_factory=list)
    fs_not_exists: list[str] = field(default_factory=list)
    fs_contents: dict[str, str] = field(default_factory=dict)
    fs_sha256: dict[str, str] = field(default_factory=dict)
    text_contains: list[str] = field(default_factory=list)
    json_file: list[JsonFileCheck] = field(default_factory=list)
    git_commit: list[GitCommitCheck] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    """Runner-specific assertion keys (e.g. ``acp``), kept as written."""
    pos: Pos | None = None

    @property
    def count(self) -> int:
        """How many checks ``evaluate_assert`` runs."""
        return (
            len(self.fs_exists) + len(self.fs_not_exists) + len(self.fs_contents) + len(self.fs_sha256)
            + len(self.text_contains)
            + len(self.json_file) + len(self.git_commit)
        )

    def describe(self) -> str:
        parts: list[str] = []
        if self.fs_exists:
            parts.append(f"fs.exists {self.fs_exists}")
        if self.fs_not_exists:
            parts.append(f"fs.notExists {self.fs_not_exists}")
        if self.fs_contents:
            parts.append(f"fs.contents {sorted(self.fs_contents)}")
        if self.fs_sha256:
            parts.append(f"fs.sha256 {sorted(self.fs_sha256)}")
        if self.text_contains:
            parts.append(f"text.contains {self.text_contains}")
        for j in self.json_file:
            parts.append(f"json.file {j.path}{j.pointer} == {json.dumps(j.equals)}")
        for g in self.git_commit:
            parts.append(f"git.commit messageContains {g.message_contains!r}")
        where = f" ({self.pos.short})" if self.pos else ""
        return "assert " + ("; ".join(parts) or "(nothing)") + where


@dataclass(frozen=True, slots=True)
class AssertResult:
    check: str
    passed: bool
    expected: Any = None
    actual: Any = None
    workspace: str | None = None
    """The directory a path check looked in (``fs.exists`` / ``fs.notExists``), shown in ``message()``."""


@dataclass(slots=True)
class AssertReport:
    results: list[AssertResult]
    source: str | None = None

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> list[AssertResult]:
        return [r for r in self.results if not r.passed]

    def message(self) -> str:
        """A readable failure summary (empty when everything passed)."""
        bad = self.failed
        if not bad:
            return ""
        where = f" at {self.source}" if self.source else ""
        lines = [f"{len(bad)} of {len(self.results)} scenario assertion(s) failed{where}:"]
        for r in bad:
            where = f" (in workspace {r.workspace})" if r.workspace else ""
            lines.append(f"  - {r.check}: expected {r.expected!r}, got {r.actual!r}{where}")
        return "\n".join(lines)


def evaluate_assert(spec: AssertSpec, root: str | Path, *, text: str | None = None) -> AssertReport:
    """Run every check of ``spec`` against the workspace ``root`` (and ``text``, if given)."""
    base = Path(root)
    out: list[AssertResult] = []
    for p in spec.fs_exists:
        ok = (base / p).exists()
        out.append(AssertResult(f"fs.exists {p}", ok, "exists", "exists" if ok else "missing", str(base)))
    for p in spec.fs_not_exists:
        there = (base / p).exists()
        out.append(AssertResult(f"fs.notExists {p}", not there, "missing", "exists" if there else "missing", str(base)))
    for p, want in spec.fs_contents.items():
        got = _file_text(base / p)
        out.append(AssertResult(f"fs.contents {p}", got == want, _tail(want), _tail(got), str(base)))
    for p, want in spec.fs_sha256.items():
        got = _file_sha256(base / p)
        out.append(AssertResult(f"fs.sha256 {p}", got == want.lower(), want, got, str(base)))
    for s in spec.text_contains:
        if text is None:
            out.append(AssertResult(f"text.contains {s!r}", False, s, "no text was given to check (pass text=...)"))
        else:
            ok = _normalize(s) in _normalize(text)
            out.append(AssertResult(f"text.contains {s!r}", ok, s, None if ok else _tail(text)))
    for j in spec.json_file:
        out.append(_check_json(base, j))
    if spec.git_commit:
        message = _last_commit_message(base)
        for g in spec.git_commit:
            ok = message is not None and g.message_contains in message
            name = f"git.commit messageContains {g.message_contains!r}"
            out.append(AssertResult(name, ok, g.message_contains, message))
    return AssertReport(out, spec.pos.short if spec.pos else None)


def _check_json(base: Path, j: JsonFileCheck) -> AssertResult:
    name = f"json.file {j.path}{j.pointer}"
    try:
        doc = json.loads((base / j.path).read_text())
    except FileNotFoundError:
        return AssertResult(name, False, j.equals, "file missing")
    except (OSError, ValueError) as e:
        return AssertResult(name, False, j.equals, f"unreadable JSON: {e}")
    value = resolve_pointer(doc, j.pointer)
    if value is MISSING:
        return AssertResult(name, False, j.equals, "pointer not found")
    return AssertResult(name, value == j.equals, j.equals, value)


def _file_text(path: Path) -> str:
    """The file's text, else what it is instead (``missing``, ``not UTF-8 text (N bytes)``)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "(missing)"
    except OSError as e:
        return f"(unreadable: {e.strerror or e})"
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"(not UTF-8 text: {len(data)} bytes)"


def _file_sha256(path: Path) -> str:
    import hashlib

    try:
        with path.open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except FileNotFoundError:
        return "(missing)"
    except OSError as e:
        return f"(unreadable: {e.strerror or e})"


def _last_commit_message(base: Path) -> str | None:
    from autocue.process import capture_sync  # imported when a git check runs: the module stays light

    try:
        r = capture_sync(["git", "log", "-1", "--format=%B"], cwd=str(base), timeout=30)
    except OSError:
        return None
    return r.stdout.strip() if r.code == 0 else None


def _normalize(s: str) -> str:
    return " ".join(s.split())


def _tail(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else "..." + text[-limit:]
