"""``Recording``: one conversation turned into a scenario file, one reply at a time.

Shared by the recording proxy (``autocue record``) and the in-process recorder
(``create_test_session(record=...)``), which is why it sits in ``scenario/``.

A recording starts with the session's first model request: its first user message becomes
``initialPrompt``. Each reply becomes an ``llmResponse``: ``think`` / ``assistant`` elements
with ``[ms, text]`` timings as measured (``ms`` = milliseconds between the previous block's
first piece, or the request being forwarded, and this block's first piece), and an
``agentToolUse`` per tool call with the call id the upstream gave. Usage, stop reason, model and
response id go under the item's ``_meta``. A failed call (status >= 400) becomes an ``error``
element with the status, the API's error type and message, its body and ``retry-after``. A
later request whose last message is a new user prompt (not a tool result, not the retry of a
failed call) starts a new turn with ``userInputs``.

Every string goes through the ``Redactor`` before it is written; nothing else of the request
(headers, keys) is kept, except what replay chooses a recording by (``traits``, written as
``server.recording``): API, model, tools, and SHA-256 hashes of the system text and client key.
``dumps()`` renders the scenario as YAML that ``autocue scenario check --strict`` accepts and
``autocue serve`` replays.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from autocue.scenario.errors import RecordingFileError as RecordingFileError
from autocue.scenario.redact import Redactor


@dataclass(slots=True)
class TimedReply:
    """A reply as it arrived: the message and when each content block started, for a recording."""

    message: AssistantMessage
    block_times: list[float] = field(default_factory=list)
    """Seconds from the request to each content block's first piece."""
    end_time: float = 0.0
    """Seconds from the request to the reply's end."""


_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
"""Characters YAML does not allow raw (DEL, C1 controls, U+FFFE/FFFF) or may read as a line break or BOM."""


def flow(value: Any) -> str:
    """``value`` as a YAML flow node: JSON (a subset of YAML 1.2), with the characters YAML does
    not accept raw written as ``\\uXXXX`` escapes."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", orjson.dumps(value).decode())


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


@dataclass
class Recording:
    """The scenario being recorded for one session. Items are rendered once, when they happen;
    ``write`` appends the new ones to the file (the scenario's ``timeline`` is its last key)."""

    name: str
    redactor: Redactor
    initial_prompt: str | None = None
    traits: dict[str, Any] | None = None
    """What replay chooses the recording by (``autocue.mockllm.choice.recording_traits`` of the first
    request: API, model, hashes of the system text and client key, tools); written as ``server.recording``."""
    match: str | None = None
    """Written as ``server.match`` (``strict``: replay fails a request that differs from the recorded one)."""
    items: list[str] = field(default_factory=list)
    """Rendered timeline items (YAML text, each ending in a newline)."""
    replies: int = 0
    errors: int = 0
    _last_error: bool = False
    _request: dict[str, Any] | None = None
    """The fingerprint of the request being answered (``_meta.request`` of its reply)."""
    _started: bool = False
    _flushed: int = 0
    _resumed: bool = False
    _file: tuple[int, int] | None = None
    """``(st_dev, st_ino)`` of the file written, so an append goes to that file only."""

    def resume(self) -> None:
        """Continue a scenario file that exists (its head and items are kept; new items are appended)."""
        self._started = True
        self._resumed = True

    # ------------------------------------------------------------------ requests
    def request(self, first_user_text: str, last_user_text: str, fingerprint: dict[str, Any] | None = None) -> None:
        """Note a model request before its reply: the first sets ``initialPrompt``; a later one
        ending in a new user prompt starts a turn (a retry after an error does not). ``fingerprint``
        (``autocue.mockllm.fingerprint``'s compact form) is written as its reply's ``_meta.request``."""
        self._request = fingerprint
        if not self._started:
            self._started = True
            self.initial_prompt = self.redactor.text(first_user_text) if first_user_text else None
            return
        if last_user_text and not self._last_error:
            self.items.append(f"  - userInputs: [[0, {flow(self.redactor.text(last_user_text))}]]\n")

    # ------------------------------------------------------------------ replies
    def reply(self, parsed: TimedReply) -> None:
        """A reply read by the provider parser (a failed reply without content is an error step)."""
        msg = parsed.message
        if msg.stop_reason in ("error", "aborted") and not msg.content:
            self.error(msg.error_status or 500, None, msg.error_message or "the upstream reply failed",
                       msg.retry_after)
            return
        red = self.redactor
        lines = ["  - llmResponse:\n"]
        prev = 0.0
        for block, t in zip(msg.content, parsed.block_times, strict=False):
            ms = _ms(t - prev)
            prev = max(prev, t)
            if isinstance(block, ThinkingContent):
                lines.append(f"      - think: [[{ms}, {flow(red.text(block.thinking))}]]\n")
            elif isinstance(block, TextContent):
                lines.append(f"      - assistant: [[{ms}, {flow(red.text(block.text))}]]\n")
            elif isinstance(block, ToolCall):
                args = block.arguments if isinstance(block.arguments, dict) else {"arguments": block.arguments}
                use: dict[str, Any] = {"toolName": block.name}
                if block.id:
                    use["toolCallId"] = red.text(block.id)
                use["args"] = red.value(args)
                lines.append(f"      - agentToolUse: {flow(use)}\n")
        if len(lines) == 1:
            lines.append(f"      - assistant: [[{_ms(parsed.end_time)}, \"\"]]\n")
        meta = self._meta(msg)
        if self._request is not None:
            meta["request"] = self._request
        lines.append(f"    _meta: {flow(meta)}\n")
        self.items.append("".join(lines))
        self.replies += 1
        self._last_error = False

    @staticmethod
    def _meta(msg: AssistantMessage) -> dict[str, Any]:
        u = msg.usage
        meta: dict[str, Any] = {"stopReason": msg.stop_reason, "usage": {
            "input": u.input, "output": u.output, "cacheRead": u.cache_read, "cacheWrite": u.cache_write}}
        if msg.model and msg.model != "recorded":
            meta["model"] = msg.model
        if msg.response_id:
            meta["responseId"] = msg.response_id
        return meta

    def error(self, status: int, body: Any, message: str, retry_after: float | None,
              error_type: str | None = None) -> None:
        """A failed call: an ``error`` step (retry-after in seconds, the API body when it is an object)."""
        err: dict[str, Any] = {"statusCode": status}
        if error_type:
            err["errorType"] = self.redactor.text(error_type)
        err["message"] = self.redactor.text(message)
        if isinstance(body, dict):
            err["body"] = self.redactor.value(body)
        if retry_after is not None:
            err["retryAfterSeconds"] = round(retry_after, 3)
        item = f"  - llmResponse:\n      - error: {flow(err)}\n"
        if self._request is not None:
            item += f"    _meta: {flow({'request': self._request})}\n"
        self.items.append(item)
        self.errors += 1
        self._last_error = True

    # ------------------------------------------------------------------ output
    def head(self) -> str:
        text = f"# recorded by autocue record\nname: {flow(self.name)}\n"
        if self.initial_prompt is not None:
            text += f"initialPrompt: {flow(self.initial_prompt)}\n"
        server: dict[str, Any] = {}
        if self.traits is not None:
            server["recording"] = self.redactor.value(self.traits)
        if self.match is not None:
            server["match"] = self.match
        if server:
            text += f"server: {flow(server)}\n"
        return text + "timeline:\n"

    def dumps(self) -> str:
        return self.head() + "".join(self.items)

    def write(self, path: Path) -> None:
        """The first write creates the file atomically; later ones append the new items, to the
        file the first write created only (``append_to``: a link or another file planted at the
        name meanwhile is refused with ``RecordingFileError``, never written through)."""
        if (self._flushed == 0 and not self._resumed) or not os.path.lexists(path):
            self._file = write_atomic(path, self.dumps())
        elif self._flushed < len(self.items):
            self._file = append_to(path, "".join(self.items[self._flushed:]), self._file)
        self._flushed = len(self.items)

    def release(self) -> None:
        """Drop the items already in the file from memory (the recording proxy calls it after each
        write, so a session of any length keeps only its unwritten items); later writes append.
        ``dumps()`` then renders the head and the unwritten items only."""
        if self._flushed:
            del self.items[:self._flushed]
            self._flushed = 0
            self._resumed = True


def write_atomic(path: Path, text: str) -> tuple[int, int]:
    """Write ``path`` as a new file renamed over the name; its ``(st_dev, st_ino)``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            st = os.fstat(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return st.st_dev, st.st_ino


def append_to(path: Path, text: str, identity: tuple[int, int] | None) -> tuple[int, int]:
    """Append ``text`` to ``path``, opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with
    ``fstat`` before a byte is written: a regular file with one link and, when ``identity`` is
    given, the very file written before. Its ``(st_dev, st_ino)``; else ``RecordingFileError``."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise RecordingFileError(f"{path}: is now a symbolic link; the recording is not appended through it "
                                     "(remove the link; the items recorded so far are in memory only)") from None
        raise
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or (identity is not None
                                                                 and (st.st_dev, st.st_ino) != identity):
            raise RecordingFileError(f"{path}: is no longer the file autocue wrote (replaced by "
                                     f"{'another file' if stat.S_ISREG(st.st_mode) else 'a special file'}); "
                                     "the recording is not appended to it")
        f.write(text)
    return st.st_dev, st.st_ino
