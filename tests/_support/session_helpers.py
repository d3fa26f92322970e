"""Shared helpers for the AgentSession / extension tests (scripted replies, settings, recording UI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autocue.agent import AgentTool, tool
from autocue.llm.types import TextContent, ThinkingContent, Usage
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall
from autocue.script.model import ScriptedError
from autocue.session import AgentSession, CompactionSettings, RetrySettings, Settings


def say(text: str, usage: Usage | None = None) -> ScriptedResponse:
    return ScriptedResponse([TextContent(text)], usage=usage)


def call(name: str, args: dict[str, Any] | None = None, *, id: str | None = None) -> ScriptedResponse:
    return ScriptedResponse([ScriptedToolCall(name, args or {}, id=id)])


def calls(*pairs: tuple[str, dict[str, Any]]) -> ScriptedResponse:
    return ScriptedResponse([ScriptedToolCall(n, a) for n, a in pairs])


def think_say(thought: str, text: str) -> ScriptedResponse:
    return ScriptedResponse([ThinkingContent(thought), TextContent(text)])


def fail(kind: str = "overloaded", message: str = "try later", **kw: Any) -> ScriptedResponse:
    return ScriptedResponse(error=ScriptedError(message, kind=kind, **kw))  # type: ignore[arg-type]


def settings(*, max_retries: int = 3, base_delay_ms: int = 0, max_delay_ms: int = 60000, retry: bool = True,
             compaction: bool = False, reserve_tokens: int = 16384, keep_recent_tokens: int = 20000) -> Settings:
    s = Settings()
    s.retry = RetrySettings(retry, max_retries, base_delay_ms, max_delay_ms)
    s.compaction = CompactionSettings(compaction, reserve_tokens, keep_recent_tokens)
    return s


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@tool
def boom(reason: str = "kaput") -> str:
    """Always raises."""
    raise RuntimeError(reason)


def make_session(
    steps: Sequence[Any] = (),
    *,
    tools: Sequence[AgentTool] | None = None,
    extensions: Sequence[Any] = (),
    settings_: Settings | None = None,
    **kw: Any,
) -> tuple[AgentSession, ScriptedProvider]:
    provider = ScriptedProvider(list(steps))
    session = AgentSession(
        provider=provider,
        tools=list(tools) if tools is not None else [echo, boom],
        extensions=list(extensions),
        settings=settings_ if settings_ is not None else settings(),
        **kw,
    )
    return session, provider


def record(session: AgentSession) -> list[Any]:
    events: list[Any] = []
    session.subscribe(events.append)
    return events


def types(events: Sequence[Any], *, skip_updates: bool = True) -> list[str]:
    return [e.type for e in events if not (skip_updates and e.type == "message_update")]


class RecordingUI:
    """A UI that answers from a dict and records every call."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    async def select(self, title: str, options: Sequence[str], *, timeout: float | None = None,
                     signal: Any = None) -> Any:
        self.calls.append(("select", (title, list(options))))
        return self.answers.get("select", options[0] if options else None)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None, signal: Any = None) -> Any:
        self.calls.append(("confirm", (title, message)))
        return self.answers.get("confirm", True)

    async def input(self, title: str, placeholder: str | None = None, *, timeout: float | None = None,
                    signal: Any = None) -> Any:
        self.calls.append(("input", (title, placeholder)))
        return self.answers.get("input", "")

    async def editor(self, title: str, prefill: str | None = None, *, timeout: float | None = None,
                     signal: Any = None) -> Any:
        self.calls.append(("editor", (title, prefill)))
        return self.answers.get("editor", "")

    def notify(self, message: str, level: str = "info") -> None:
        self.calls.append(("notify", (message, level)))

    def set_status(self, key: str, text: str | None) -> None:
        self.calls.append(("set_status", (key, text)))

    def set_widget(self, key: str, lines: Any, *, placement: str = "aboveEditor") -> None:
        self.calls.append(("set_widget", (key, lines, placement)))

    def set_title(self, title: str) -> None:
        self.calls.append(("set_title", (title,)))

    def set_working_message(self, message: str | None = None) -> None:
        self.calls.append(("set_working_message", (message,)))
