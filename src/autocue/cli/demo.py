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
    from autocue.tools import create_builtin_tools

    with tempfile.TemporaryDirectory(prefix="autocue-demo-") as cwd:
        tools = list(create_builtin_tools(cwd, ["write", "read", "edit", "bash"]).values())
        provider = ScriptedProvider(
            [
                ScriptedResponse(
                    [
                        ThinkingContent("I'll create the file first, then check it."),
                        ScriptedToolCall("write", {"path": "hello.txt", "content": "Hello, world!\n"}),
                    ]
                ),
                ScriptedResponse(
                    [ScriptedToolCall("edit", {"path": "hello.txt", "oldText": "world", "newText": "autocue"})]
                ),
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


def _repo_root() -> Path | None:
    """The source checkout (the demo uses its examples/); None for an installed wheel without them."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "examples").is_dir() and (parent / "pyproject.toml").is_file():
            return parent
    return None


_NO_EXAMPLES = "examples/ not found (run the demo from a source checkout)"


def _example_scenarios(root: Path) -> list[Path]:
    return sorted((root / "examples" / "scenarios").glob("*.yaml"))


def section_playbook_tests() -> tuple[bool, str]:
    """The example extension's playbook tests, run by pytest (with autocue's plugin)."""
    import subprocess

    root = _repo_root()
    if root is None:
        return False, _NO_EXAMPLES
    tests = sorted(str(p.relative_to(root)) for p in (root / "examples").glob("*/tests"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *tests],
        cwd=root, capture_output=True, text=True, timeout=600,
    )
    for line in proc.stdout.splitlines():
        if line.strip():
            print(f"  {line}")
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-200:]
    return proc.returncode == 0, f"pytest {' '.join(tests)}: {summary}"


def section_scenarios_in_process() -> tuple[bool, str]:
    """Every example scenario played in-process through a TestSession, assert steps included."""
    from autocue.testing.scenario_runner import run_scenario

    root = _repo_root()
    if root is None:
        return False, _NO_EXAMPLES
    files = _example_scenarios(root)
    ok = 0
    for f in files:
        try:
            run = run_scenario(f)
        except Exception as e:  # report and go on with the next scenario
            print(f"  FAIL {f.name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        ok += 1
        checks = sum(a.spec.count for a in run.assertions)
        print(
            f"  PASS {f.name}: {run.session.playbook.consumed} replies, tools {run.events.tool_sequence()}, "
            f"{checks} assertion checks"
        )
    return ok == len(files) and ok > 0, f"{ok} of {len(files)} scenarios passed"


API_FOR_STYLE = {"anthropic": "anthropic-messages", "openai": "openai-completions", "gemini": "google-generative"}


def _print_json_events(lines: list[str]) -> None:
    import json

    for line in lines:
        ev = json.loads(line)
        if ev.get("type") == "tool_execution_end":
            text = " ".join(b.get("text", "") for b in ev["result"]["content"]).strip().replace("\n", " | ")
            print(f"    {'✗' if ev['isError'] else '✓'} {ev['toolName']} → {text[:80]}")
        elif ev.get("type") == "message_end" and ev["message"]["role"] == "assistant":
            for b in ev["message"]["content"]:
                if b["type"] == "text":
                    print(f"    model: {b['text'][:100]}")
                elif b["type"] == "thinking":
                    print(f"    model thinks: {b['thinking'][:100]}")


def _http_run(path: Path) -> tuple[bool, str]:
    """Serve one scenario on the mock server and drive it with autocue's own agent CLI over HTTP."""
    import json
    import os
    import subprocess

    from autocue.mockllm import serve
    from autocue.scenario import load_scenario
    from autocue.testing.scenario_runner import prepare_repo

    scenario = load_scenario(path)
    style = scenario.server.llm_api_style if scenario.server is not None else None
    api = API_FOR_STYLE.get(style or "anthropic", "anthropic-messages")
    prompt = scenario.initial_prompt or "hello"
    with tempfile.TemporaryDirectory(prefix="autocue-demo-http-") as tmp:
        work = Path(tmp) / "work"
        home = Path(tmp) / "home"
        work.mkdir()
        home.mkdir()
        prepare_repo(scenario, work)
        with serve(path, workspace=work) as server:
            models = {"providers": {"mock": {
                "base_url": server.base_url, "api": api, "api_key": "demo-session",
                "models": [{"id": "mock-model", "context_window": 200000}],
            }}}
            (home / "models.json").write_text(json.dumps(models))
            env = {**os.environ, "AUTOCUE_DIR": str(home)}
            prompts = [t.prompt or "continue" for t in scenario.compile().turns] or [prompt]
            stdout: list[str] = []
            codes: list[int] = []
            stderr = ""
            for i, text in enumerate(prompts):  # one CLI run per user turn; later turns --continue
                proc = subprocess.run(
                    [sys.executable, "-m", "autocue.cli.main", "--mode", "json", "--model", "mock/mock-model",
                     "--cwd", str(work), "--no-discover", *(["--continue"] if i else []), text],
                    capture_output=True, text=True, timeout=120, env=env,
                )
                print(f"    user: {text}")
                stdout.extend(proc.stdout.splitlines())
                codes.append(proc.returncode)
                stderr += proc.stderr
                _print_json_events(proc.stdout.splitlines())
            sessions = server.sessions()
        ok = all(c == 0 for c in codes)
        detail = f"{api}, {len(prompts)} turn(s), exit codes {codes}"
        for sess in sessions if isinstance(sessions, list) else []:
            consumed, remaining = sess.get("consumed"), sess.get("remaining")
            failed = [a for a in sess.get("assertions", []) if not a.get("passed", True)]
            ok = ok and remaining == 0 and not failed
            detail += f", {consumed} served / {remaining} left, {len(sess.get('assertions', []))} assert steps"
        if not all(c == 0 for c in codes):
            detail += f": {stderr.strip()[-200:]}"
        return ok, detail


def section_scenarios_http() -> tuple[bool, str]:
    """Every example scenario served by the mock LLM server and played by autocue's agent CLI."""
    root = _repo_root()
    if root is None:
        return False, _NO_EXAMPLES
    files = _example_scenarios(root)
    passed = 0
    for f in files:
        print(f"  {f.name}")
        try:
            ok, detail = _http_run(f)
        except Exception as e:  # report and go on
            ok, detail = False, f"{type(e).__name__}: {e}"
        print(f"  {'PASS' if ok else 'FAIL'} {f.name}: {detail}")
        passed += ok
    return passed == len(files) and passed > 0, f"{passed} of {len(files)} scenarios passed over HTTP"


def section_loop() -> tuple[bool, str]:
    """The example orchestrator loop (mock backend): hats, events, completion, recorded session."""
    import shutil
    import subprocess

    from autocue.loop import read_session

    root = _repo_root()
    if root is None:
        return False, _NO_EXAMPLES
    with tempfile.TemporaryDirectory(prefix="autocue-demo-loop-") as tmp:
        shutil.copy(root / "examples" / "loop" / "autocue.loop.yml", tmp)
        proc = subprocess.run(
            [sys.executable, "-m", "autocue.cli.main", "loop", "-c", "autocue.loop.yml"],
            cwd=tmp, capture_output=True, text=True, timeout=120,
        )
        output = proc.stdout + proc.stderr
        for line in output.splitlines():
            if line.startswith("[") or "<event" in line:
                print(f"  {line}")
        sessions = sorted(Path(tmp).rglob("session.jsonl"))
        records = len(read_session(sessions[0])) if sessions else 0
        ok = proc.returncode == 0 and "CompletionPromise" in output and records > 0
        return ok, f"exit {proc.returncode}, {records} session records"


SECTIONS: list[tuple[str, Callable[[], tuple[bool, str]]]] = [
    ("in-process agent with real tools", section_agent),
    ("example playbook tests (pytest)", section_playbook_tests),
    ("example scenarios, in-process", section_scenarios_in_process),
    ("example scenarios over HTTP: mock LLM server + autocue agent CLI", section_scenarios_http),
    ("example orchestrator loop (mock backend)", section_loop),
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
