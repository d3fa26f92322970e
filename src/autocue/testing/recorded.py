"""In-process record and replay: ``create_test_session(record="path.yaml", provider=..., model=...)``.

``RecordReplayProvider`` stands in for the model, like a cassette library's cassette:

- the file is **missing**: each model call goes to the real ``provider`` (with ``model``) and
  its reply is written to the scenario file as it happens (``autocue record``'s writer and
  redaction: the first user message becomes ``initialPrompt``, each reply an ``llmResponse``
  with ``[ms, text]`` timings, usage and stop reason under ``_meta``, errors as ``error``
  steps, a later user prompt ``userInputs``);
- the file is **present**: its replies are played in order (``ScriptedProvider``) and nothing
  is sent anywhere.

Record modes (pytest ``--autocue-record=MODE``, or ``record_mode=``), named as VCR.py names them:

- ``new_episodes`` (default): replay what the file has; record a missing file, and once the
  file's replies are used up, record further calls and append them;
- ``none``: replay only; a missing file, or a call past its last reply, fails the call
  (``RecordingMissingError`` text as the reply's error);
- ``all``: record every call again, replacing a file that ``autocue record`` wrote (a file
  without its ``# recorded by autocue`` header is never replaced).
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal, Protocol, cast

from autocue.llm.events import AssistantMessageEvent
from autocue.llm.stream import AssistantMessageEventStream, StreamOptions, error_stream
from autocue.llm.types import AssistantMessage, Context, Model, UserMessage
from autocue.scenario import load_scenario
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import Recording, TimedReply
from autocue.script.model import ScriptedResponse
from autocue.script.provider import ScriptedProvider
from autocue.testing.errors import HarnessError
from autocue.testing.errors import RecordingMissingError as RecordingMissingError

RecordMode = Literal["all", "none", "new_episodes"]
RECORD_MODES: tuple[str, ...] = ("all", "none", "new_episodes")
HEADER = "# recorded by autocue"

_default_mode: list[RecordMode] = ["new_episodes"]


def set_default_record_mode(mode: str) -> None:
    """The mode ``create_test_session(record=...)`` uses when given none (the pytest plugin sets it)."""
    if mode not in RECORD_MODES:
        raise HarnessError(f"record mode {mode!r}: give one of {', '.join(RECORD_MODES)}")
    _default_mode[0] = cast(RecordMode, mode)


def default_record_mode() -> RecordMode:
    return _default_mode[0]


class Provider(Protocol):
    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream: ...


def _first_user(ctx: Context) -> str:
    return next((m.text for m in ctx.messages if isinstance(m, UserMessage)), "")


def _last_user(ctx: Context) -> str:
    last = ctx.messages[-1] if ctx.messages else None
    return last.text if isinstance(last, UserMessage) else ""


class RecordReplayProvider:
    """Replays a scenario file's replies, records a real provider's into it (see the module doc)."""

    api = "autocue-recorded"

    def __init__(self, path: str | os.PathLike[str], *, provider: Provider | None = None, model: Model | None = None,
                 mode: str | None = None, redactor: Redactor | None = None) -> None:
        self.path = Path(path)
        self.mode: RecordMode = cast(RecordMode, mode or default_record_mode())
        if self.mode not in RECORD_MODES:
            raise HarnessError(f"record_mode {self.mode!r}: give one of {', '.join(RECORD_MODES)}")
        self.live = provider
        self.model = model
        self.redactor = redactor or Redactor()
        self.replay: ScriptedProvider | None = None
        self.replayed = 0
        self.recorded = 0
        exists = self.path.exists()
        where = f"record={str(self.path)!r}"
        if exists and self.mode == "all" and not self.path.read_text(encoding="utf-8").startswith(HEADER):
            raise HarnessError(f"{where}: the file exists and was not written by autocue (no {HEADER!r} header); "
                               "record mode 'all' replaces only autocue's recordings: move it or name another file")
        if not exists and self.mode == "none":
            raise RecordingMissingError(f"{where}: no such recording, and record mode 'none' only replays: record "
                                        "it with --autocue-record=new_episodes (or record_mode='new_episodes')")
        if (not exists or self.mode == "all") and (provider is None or model is None):
            raise HarnessError(f"{where}: {'no such recording' if not exists else 'record mode all'}: pass the real "
                               "provider= and model= to record with")
        if exists and self.mode != "all":
            steps = load_scenario(self.path).compile().all_steps()
            self.replay = ScriptedProvider([s for s in steps if isinstance(s, ScriptedResponse)])
        self.recording = Recording(self.path.stem, self.redactor)
        if exists and self.mode == "new_episodes":
            self.recording.resume()

    @property
    def replaying(self) -> bool:
        return self.replay is not None and self.replay.remaining > 0

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        if self.replay is not None and self.replay.remaining > 0:
            self.replayed += 1
            return self.replay.stream(model, context, options)
        if self.mode == "none" or self.live is None or self.model is None:
            return error_stream(model, f"recording {self.path} has no reply for model call {self.replayed + 1} "
                                       f"(record mode {self.mode!r}{'' if self.live else ', no provider='}): record "
                                       "the new calls with --autocue-record=new_episodes and provider=, model=")
        return AssistantMessageEventStream(self._record(context, options))

    async def _record(self, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
        assert self.live is not None and self.model is not None
        self.recording.request(_first_user(context), _last_user(context))
        t0 = time.perf_counter()
        timed = TimedReply(AssistantMessage())
        inner = self.live.stream(self.model, context, options)
        async for ev in inner:
            if ev.type in ("text_start", "thinking_start", "toolcall_start"):
                timed.block_times.append(time.perf_counter() - t0)
            if ev.type in ("done", "error"):
                timed.message = ev.message if ev.type == "done" else ev.error
                timed.end_time = time.perf_counter() - t0
                self._write(timed)
            yield ev

    def _write(self, timed: TimedReply) -> None:
        self.recording.reply(timed)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.recording.write(self.path)
        self.recorded += 1

    async def aclose(self) -> None:
        """Close the real provider's connections (the harness calls it when the session is disposed)."""
        close = getattr(self.live, "aclose", None)
        if close is not None:
            await close()

    def describe(self) -> dict[str, Any]:
        return {"path": str(self.path), "mode": self.mode, "replayed": self.replayed, "recorded": self.recorded}
