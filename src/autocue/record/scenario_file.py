"""``Recording``: one client session turned into a scenario file, one reply at a time.

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
(headers, keys) is kept. ``dumps()`` renders the scenario as YAML that ``autocue scenario check
--strict`` accepts and ``autocue serve`` replays.
"""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from autocue.record.capture import ParsedReply
from autocue.record.redact import Redactor


def _flow(items: list[Any]) -> CommentedSeq:
    s = CommentedSeq(items)
    s.fa.set_flow_style()
    return s


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


@dataclass
class Recording:
    """The scenario being recorded for one session."""

    name: str
    redactor: Redactor
    initial_prompt: str | None = None
    timeline: list[CommentedMap] = field(default_factory=list)
    replies: int = 0
    errors: int = 0
    _last_error: bool = False
    _started: bool = False

    # ------------------------------------------------------------------ requests
    def request(self, first_user_text: str, last_user_text: str) -> None:
        """Note a model request before its reply: the first sets ``initialPrompt``; a later one
        ending in a new user prompt starts a turn (a retry after an error does not)."""
        if not self._started:
            self._started = True
            self.initial_prompt = self.redactor.text(first_user_text) if first_user_text else None
            return
        if last_user_text and not self._last_error:
            self.timeline.append(CommentedMap(userInputs=[_flow([0, self.redactor.text(last_user_text)])]))

    # ------------------------------------------------------------------ replies
    def reply(self, parsed: ParsedReply) -> None:
        """A reply read by the provider parser (a streamed error inside the reply is an error step)."""
        msg = parsed.message
        if msg.stop_reason in ("error", "aborted") and not msg.content:
            self.error(msg.error_status or 500, None, msg.error_message or "the upstream reply failed",
                       msg.retry_after)
            return
        parts = CommentedSeq()
        prev = 0.0
        for block, t in zip(msg.content, parsed.block_times, strict=False):
            ms = _ms(t - prev)
            prev = max(prev, t)
            if isinstance(block, ThinkingContent):
                parts.append(CommentedMap(think=[_flow([ms, self.redactor.text(block.thinking)])]))
            elif isinstance(block, TextContent):
                parts.append(CommentedMap(assistant=[_flow([ms, self.redactor.text(block.text)])]))
            elif isinstance(block, ToolCall):
                args = block.arguments if isinstance(block.arguments, dict) else {"arguments": block.arguments}
                use = CommentedMap(toolName=block.name)
                if block.id:
                    use["toolCallId"] = self.redactor.text(block.id)
                use["args"] = self.redactor.value(args)
                parts.append(CommentedMap(agentToolUse=use))
        if not parts:
            parts.append(CommentedMap(assistant=[_flow([_ms(parsed.end_time), ""])]))
        item = CommentedMap(llmResponse=parts)
        item["_meta"] = self._meta(msg)
        self.timeline.append(item)
        self.replies += 1
        self._last_error = False

    @staticmethod
    def _meta(msg: AssistantMessage) -> CommentedMap:
        u = msg.usage
        meta = CommentedMap(stopReason=msg.stop_reason)
        meta["usage"] = _flow_map(input=u.input, output=u.output, cacheRead=u.cache_read, cacheWrite=u.cache_write)
        if msg.model and msg.model != "recorded":
            meta["model"] = msg.model
        if msg.response_id:
            meta["responseId"] = msg.response_id
        return meta

    def error(self, status: int, body: Any, message: str, retry_after: float | None,
              error_type: str | None = None) -> None:
        """A failed call: an ``error`` step (retry-after in seconds, the API body when it is an object)."""
        err = CommentedMap(statusCode=status)
        if error_type:
            err["errorType"] = self.redactor.text(error_type)
        err["message"] = self.redactor.text(message)
        if isinstance(body, dict):
            err["body"] = self.redactor.value(body)
        if retry_after is not None:
            err["retryAfterSeconds"] = round(retry_after, 3)
        self.timeline.append(CommentedMap(llmResponse=[CommentedMap(error=err)]))
        self.errors += 1
        self._last_error = True

    # ------------------------------------------------------------------ output
    def document(self) -> CommentedMap:
        doc = CommentedMap(name=self.name)
        if self.initial_prompt is not None:
            doc["initialPrompt"] = self.initial_prompt
        doc["timeline"] = self.timeline
        return doc

    def dumps(self) -> str:
        yaml = YAML(typ="rt", pure=True)
        yaml.width = 4096
        yaml.allow_unicode = True
        buf = io.StringIO()
        buf.write(f"# recorded by autocue record: {self.replies} repl{'y' if self.replies == 1 else 'ies'}, "
                  f"{self.errors} error(s)\n")
        yaml.dump(self.document(), buf)
        return buf.getvalue()

    def write(self, path: Path) -> None:
        """Write atomically (a temp file in the same directory, then rename)."""
        write_atomic(path, self.dumps())


def _flow_map(**kw: Any) -> CommentedMap:
    m = CommentedMap(kw)
    m.fa.set_flow_style()
    return m


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
