"""Keeping secrets out of recordings.

Headers are never written (a recording holds replies and prompts only). Every string that
is written goes through ``Redactor.text``, which replaces:

- each literal secret it was given: the values of the environment variables named with
  ``--redact-env`` and every credential the proxy saw in a request's auth headers
  (``authorization``, ``x-api-key``, ``api-key``, ``x-goog-api-key``, ``?key=``), custom auth
  headers (``x-internal-token`` and each header named with ``--secret-header``), cookies (the
  ``Cookie`` header and each of its values) and the values of the upstream's ``Set-Cookie``s,
  once it is at least ``MIN_SECRET`` characters long (shorter ones would blot out ordinary words);
- each match of the patterns: ``DEFAULT_PATTERNS`` (common API key shapes) plus those given
  with ``--redact REGEX``.

The replacement is ``[REDACTED]``.
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from autocue.scenario.errors import RedactionError as RedactionError

REDACTED = "[REDACTED]"
MIN_SECRET = 8
AUTH_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization", "x-internal-token",
                "x-amz-security-token")
"""Request headers whose values are credentials (more with ``secret_headers``/``--secret-header``)."""
DEFAULT_PATTERNS: tuple[str, ...] = (
    r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}",  # OpenAI / Anthropic keys
    r"AIza[0-9A-Za-z_\-]{30,}",  # Google API keys
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"(?i)bearer\s+[A-Za-z0-9._\-]{16,}",  # bearer tokens quoted in text
)


FRESH = 16
"""Secrets kept as plain strings before they are compiled into a pattern with others."""


def _trie(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words``, longest match first, as a trie (common
    prefixes written once: ``re`` then scans a string at the same speed for 10 words or 10,000)."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = True

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in node.items() if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


class Redactor:
    """Replaces secrets and secret-shaped text in everything a recording writes."""

    def __init__(self, patterns: Iterable[str] = (), env_names: Iterable[str] = (), *, defaults: bool = True,
                 environ: Mapping[str, str] | None = None, secret_headers: Iterable[str] = ()) -> None:
        env = os.environ if environ is None else environ
        self.secret_headers: tuple[str, ...] = (*AUTH_HEADERS, *(h.strip().lower() for h in secret_headers))
        """Request headers whose values are learned as secrets (lower case)."""
        self._secrets: set[str] = set()
        for name in env_names:
            value = env.get(name)
            if value is None:
                raise RedactionError(f"--redact-env {name}: the environment variable {name} is not set "
                                     "(set it, or drop the option)")
            if value:
                self._secrets.add(value)
        compiled: list[re.Pattern[str]] = []
        for p in [*(DEFAULT_PATTERNS if defaults else ()), *patterns]:
            try:
                compiled.append(re.compile(p))
            except re.error as e:
                raise RedactionError(f"--redact {p!r}: not a regular expression: {e}") from None
        self._patterns = compiled
        self._fresh: list[str] = []
        """Secrets learned since the last merge (at most ``FRESH``), longest first: checked one by one."""
        self._levels: list[tuple[list[str], re.Pattern[str]]] = []
        """The other secrets as compiled patterns (a trie each, so a scan costs the same however many
        it holds), largest first, each at most half the size of the one before: a secret is compiled
        O(log n) times in all (compiling every secret on each new one costs 0.5 s at 10,000)."""
        self._fresh = sorted(self._secrets, key=len, reverse=True)  # --redact-env values (any length)
        self._learned: deque[str] = deque()
        """Secrets learned since the last ``text``, which takes them in (and compiles them when their turn
        comes): learning costs a set and a deque, so the recording proxy's event loop never compiles a
        pattern (its writer thread does; a merge of 16,384 secrets takes 0.2 s)."""
        self._lock = threading.Lock()
        """``text`` runs in the proxy's writer thread and, for log lines, on its event loop."""

    def add_secret(self, value: str) -> None:
        """Redact ``value`` from now on (ignored when shorter than ``MIN_SECRET``)."""
        value = value.strip()
        if len(value) >= MIN_SECRET and value not in self._secrets:
            self._secrets.add(value)
            self._learned.append(value)

    def _take_learned(self) -> None:
        fresh = self._fresh
        while self._learned:
            fresh.append(self._learned.popleft())
        fresh.sort(key=len, reverse=True)  # longest first, so a secret containing another goes whole
        if len(fresh) >= FRESH:
            words = fresh
            self._fresh = []
            while self._levels and len(self._levels[-1][0]) <= len(words):
                words = self._levels.pop()[0] + words
            self._levels.append((words, re.compile(_trie(words))))

    def learn_headers(self, headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> None:
        """Remember the credentials of a request (lower-case header names)."""
        for h in self.secret_headers:
            v = headers.get(h)
            if v:
                self.add_secret(v)
                scheme, _, token = v.partition(" ")
                if token and scheme.lower() in ("bearer", "basic", "token"):
                    self.add_secret(token)
                elif scheme == "AWS4-HMAC-SHA256":  # SigV4: the signature alone is a secret too
                    self.add_secret(token.rpartition("Signature=")[2].strip())
        cookie = headers.get("cookie")
        if cookie:
            self.add_secret(cookie)
            for part in cookie.split(";"):
                self.add_secret(part.partition("=")[2])
        if query and query.get("key"):
            self.add_secret(query["key"])

    def learn_set_cookies(self, values: Iterable[str]) -> None:
        """Remember the values of a reply's ``Set-Cookie`` headers (their attributes are not secret)."""
        for v in values:
            self.add_secret(v.partition(";")[0].partition("=")[2])

    def text(self, s: str) -> str:
        with self._lock:
            if self._learned:
                self._take_learned()
            for secret in self._fresh:
                if secret in s:
                    s = s.replace(secret, REDACTED)
            for _, pattern in self._levels:
                s = pattern.sub(REDACTED, s)
        for p in self._patterns:
            s = p.sub(REDACTED, s)
        return s

    def value(self, v: Any) -> Any:
        """``v`` with every string in it (keys included) redacted."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(str(k)): self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v
