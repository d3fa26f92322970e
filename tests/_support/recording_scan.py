"""Suite-wide: nothing autocue records holds a credential (issue 32 req 7).

After every test that used ``tmp_path``, each file in it that autocue recorded (it starts with
``# recorded by autocue``: the recording proxy's scenarios, ``autocue record --agent/--cmd`` whole-run
captures, forks, the harness's recorded playbooks) is scanned, and the test errors at teardown when
one holds

- a secret a redactor of this test learned (every value ``Redactor.add_secret`` took: API keys,
  bearer tokens, SigV4 signatures, cookies and their values, custom token headers), found literally;
- or text of a credential's shape, judged by this file's own patterns (not the redactor's): OpenAI,
  Anthropic, Google and GitHub keys, AWS access key ids, SigV4 headers and signatures, bearer tokens,
  JWTs, cookie headers.

Recordings written by a subprocess (``autocue record`` run as a command) are judged by the shapes;
those written in the test's process by both. ``tests/record/test_secrets.py`` is the focused test
(every dialect through the proxy with credentials everywhere); this one holds the whole suite to it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from autocue.scenario.redact import Redactor

HEADER = b"# recorded by autocue"
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "site-packages", "__pycache__"})
SHAPES = re.compile(
    r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic keys
    r"|AIza[0-9A-Za-z_-]{30,}"  # Google API keys
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub tokens
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key ids
    r"|AWS4-HMAC-SHA256|X-Amz-Signature|X-Amz-Credential|Signature=[0-9a-f]{16,}"  # SigV4
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/-]{12,}"  # bearer tokens
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWTs
    r"|(?i:\bcookie\b)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_-]+=[^\s;\"']{6,}"  # a cookie header's value
)
"""Credential shapes; the redactor has its own list (``DEFAULT_PATTERNS``), which this one does not read."""

LEARNED: set[str] = set()
"""What this test's redactors learned (cleared before each test)."""
_add_secret = Redactor.add_secret


def _spy(self: Redactor, value: str) -> None:
    _add_secret(self, value)
    if len(value.strip()) >= 8:
        LEARNED.add(value.strip())


Redactor.add_secret = _spy  # type: ignore[method-assign]


def recordings_under(root: Path) -> Iterator[Path]:
    """The regular files below ``root`` that start with autocue's recording header."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            p = Path(folder, name)
            if p.is_symlink() or not p.is_file():
                continue
            try:
                with p.open("rb") as f:
                    if f.read(len(HEADER)) == HEADER:
                        yield p
            except OSError:
                continue


def leaks_in(path: Path, secrets: set[str]) -> list[str]:
    """``file:line: what`` for each credential in ``path`` (its name included)."""
    found = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for n, line in enumerate(text.splitlines(), 1):
        m = SHAPES.search(line)
        if m:
            found.append(f"{path}:{n}: credential-shaped text {m.group()[:40]!r}")
        found += [f"{path}:{n}: a secret the redactor learned ({s[:6]}...)" for s in secrets if s in line]
    if SHAPES.search(path.name) or any(s in path.name for s in secrets):
        found.append(f"{path}: its file name holds a credential")
    return found


@pytest.fixture(autouse=True)
def _no_credential_in_recordings(request: pytest.FixtureRequest) -> Iterator[None]:
    LEARNED.clear()
    yield
    tmp = request.node.funcargs.get("tmp_path") if hasattr(request.node, "funcargs") else None
    if tmp is None or not Path(tmp).is_dir():
        return
    leaks = [line for rec in recordings_under(Path(tmp)) for line in leaks_in(rec, LEARNED)]
    if leaks:
        pytest.fail("a recording holds a credential (issue 32 req 7; tests/_support/recording_scan.py):\n"
                    + "\n".join(leaks[:20]), pytrace=False)
