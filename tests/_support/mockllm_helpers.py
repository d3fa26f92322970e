"""Shared scripts for the mock LLM server tests (fixtures are in tests/mockllm/conftest.py)."""

from __future__ import annotations

from autocue.llm.types import TextContent, ThinkingContent
from autocue.script import Script, ScriptedError, ScriptedResponse, ScriptedToolCall, Turn


def say(text: str) -> ScriptedResponse:
    return ScriptedResponse([TextContent(text)])


def call(name: str, args: dict[str, object], id: str | None = None) -> ScriptedToolCall:
    return ScriptedToolCall(name, args, id)


def tools_script(name: str = "tools") -> Script:
    """Text + one call, then two parallel calls with thinking, then a final answer."""
    return Script(
        [
            Turn(
                "list the files",
                [
                    ScriptedResponse([TextContent("Let me look."), call("bash", {"command": "ls"})]),
                    ScriptedResponse([
                        ThinkingContent("Two files to read."),
                        call("read", {"path": "a.txt"}),
                        call("read", {"path": "b.txt"}),
                    ]),
                    say("Both files say hello."),
                ],
            )
        ],
        name=name,
    )


def thinking_script(name: str = "thinking") -> Script:
    return Script([Turn("think about it", [ScriptedResponse([ThinkingContent("Deep thought about the question."),
                                                             TextContent("The answer is 42.")])])], name=name)


def retry_script(name: str = "retry", retry_after: float = 0.001) -> Script:
    return Script([Turn("hello", [
        ScriptedResponse(error=ScriptedError("slow down", kind="rate_limit", retry_after=retry_after)),
        say("made it"),
    ])], name=name)
