"""Run autocue's shipped examples, each section for real, and end with a pass/fail summary.

The examples (the same files `autocue init` writes out) are copied to a temp dir first, so the
demo runs the same from a source checkout or an installed wheel and writes nothing where it runs.
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

from autocue.catalog.apis import provider_api_for_style
from autocue.cli.args import CliParser, fail


@dataclass
class SectionResult:
    name: str
    ok: bool
    detail: str
    seconds: float


def _print_header(title: str) -> None:
    print(f"\n== {title}")


def section_agent(examples: Path) -> tuple[bool, str]:
    """A scripted model writes, edits and runs a file with the real built-in tools in a temp dir."""
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


def _example_scenarios(examples: Path) -> list[Path]:
    return sorted((examples / "scenarios").glob("*.yaml"))


def section_playbook_tests(examples: Path) -> tuple[bool, str]:
    """The planner extension's playbook tests (planner/tests), run by pytest with autocue's plugin."""
    from autocue.process import capture_sync

    root = examples
    tests = sorted(p.relative_to(root).as_posix() for p in root.glob("*/tests"))
    proc = capture_sync(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *tests],
        cwd=str(root), timeout=600,
    )
    for line in proc.stdout.splitlines():
        if line.strip():
            print(f"  {line}")
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-200:]
    return proc.code == 0, f"pytest {' '.join(tests)}: {summary}"


def section_scenarios_in_process(examples: Path) -> tuple[bool, str]:
    """Every scenarios/*.yaml played in-process through a TestSession, assert steps included."""
    from autocue.testing.scenario_runner import run_scenario

    files = _example_scenarios(examples)
    ok = 0
    retried: list[str] = []
    for f in files:
        try:
            run = run_scenario(f)
        except Exception as e:  # report and go on with the next scenario
            print(f"  FAIL {f.name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        ok += 1
        print(f"  PASS {f.name}: {run.summary()}")
        retried += [f"{f.name}: {note}" for note in run.retries()]
    return ok == len(files) and ok > 0, f"{ok} of {len(files)} scenarios passed" + "".join(f"; {r}" for r in retried)


API_FOR_STYLE = provider_api_for_style()


def _print_json_events(lines: list[str]) -> list[str]:
    """Print what the agent CLI did; return one note per model error that was retried (what was
    served, and how the retry ended), read from its ``auto_retry_*`` events."""
    import json

    retries: list[str] = []
    for line in lines:
        ev = json.loads(line)
        if ev.get("type") == "auto_retry_start":
            served = str(ev.get("errorMessage", "")).split(":", 1)[0]
            print(f"    ✗ model call failed: {ev.get('errorMessage')} → retry {ev['attempt']} of {ev['maxAttempts']} "
                  f"in {ev['delayMs']} ms")
            retries.append(f"{served} served")
        elif ev.get("type") == "auto_retry_end":
            outcome = "succeeded" if ev.get("success") else f"failed: {ev.get('finalError')}"
            print(f"    {'✓' if ev.get('success') else '✗'} retry {ev['attempt']} {outcome}")
            if retries:
                retries[-1] += f", retried ({outcome.split(':')[0]})"
        elif ev.get("type") == "tool_execution_end":
            text = " ".join(b.get("text", "") for b in ev["result"]["content"]).strip().replace("\n", " | ")
            print(f"    {'✗' if ev['isError'] else '✓'} {ev['toolName']} → {text[:80]}")
        elif ev.get("type") == "message_end" and ev["message"]["role"] == "assistant":
            for b in ev["message"]["content"]:
                if b["type"] == "text":
                    print(f"    model: {b['text'][:100]}")
                elif b["type"] == "thinking":
                    print(f"    model thinks: {b['thinking'][:100]}")
    return retries


def _http_run(path: Path) -> tuple[bool, str, list[str]]:
    """Serve one scenario on the mock server and drive it with autocue's own agent CLI over HTTP."""
    import json
    import os

    from autocue.mockllm import serve
    from autocue.process import capture_sync
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
            retries: list[str] = []
            for i, text in enumerate(prompts):  # one CLI run per user turn; later turns --continue
                proc = capture_sync(
                    [sys.executable, "-m", "autocue.cli.main", "--mode", "json", "--model", "mock/mock-model",
                     "--cwd", str(work), "--no-discover", *(["--continue"] if i else []), text],
                    timeout=120, env=env,
                )
                print(f"    user: {text}")
                stdout.extend(proc.stdout.splitlines())
                codes.append(proc.code)
                stderr += proc.stderr
                retries += _print_json_events(proc.stdout.splitlines())
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
        return ok, detail, retries


def section_scenarios_http(examples: Path) -> tuple[bool, str]:
    """The mock LLM server serves each scenario to autocue's own agent CLI; the rate-limit one shows the 429
    being served and retried."""
    files = _example_scenarios(examples)
    passed = 0
    retried: list[str] = []
    for f in files:
        print(f"  {f.name}")
        retries: list[str] = []
        try:
            ok, detail, retries = _http_run(f)
        except Exception as e:  # report and go on
            ok, detail = False, f"{type(e).__name__}: {e}"
        print(f"  {'PASS' if ok else 'FAIL'} {f.name}: {detail}" + "".join(f", {r}" for r in retries))
        passed += ok
        retried += [f"{f.name}: {r}" for r in retries]
    summary = f"{passed} of {len(files)} scenarios passed over HTTP" + "".join(f"; {r}" for r in retried)
    return passed == len(files) and passed > 0, summary


def section_loop(examples: Path) -> tuple[bool, str]:
    """loop/autocue.loop.yml played by the mock backend: hats, events, completion, recorded session."""
    import shutil

    from autocue.loop import read_session
    from autocue.process import capture_sync

    with tempfile.TemporaryDirectory(prefix="autocue-demo-loop-") as tmp:
        shutil.copy(examples / "loop" / "autocue.loop.yml", tmp)
        proc = capture_sync(
            [sys.executable, "-m", "autocue.cli.main", "loop", "-c", "autocue.loop.yml"], cwd=tmp, timeout=120,
        )
        output = proc.stdout + proc.stderr
        for line in output.splitlines():
            if line.startswith("[") or "<event" in line:
                print(f"  {line}")
        sessions = sorted(Path(tmp).rglob("session.jsonl"))
        records = len(read_session(sessions[0])) if sessions else 0
        ok = proc.code == 0 and "CompletionPromise" in output and records > 0
        return ok, f"exit {proc.code}, {records} session records"


RUNNER_EXAMPLES = ("tui", "mock-agent")


def section_runner(examples: Path) -> tuple[bool, str]:
    """The runner's examples (tui/ and mock-agent/) run as end-to-end tests of terminal programs by
    autocue.runner.run_scenarios: each program in a pseudo-terminal, its screenshots against the
    committed goldens (CI mode: a missing golden fails)."""
    from autocue.runner import run_scenarios

    counts: list[str] = []
    passed = total = 0
    with tempfile.TemporaryDirectory(prefix="autocue-demo-run-") as out:
        for folder in RUNNER_EXAMPLES:
            report = run_scenarios(examples / folder, out=Path(out) / folder, jobs=2, ci=True)
            for r in report.scenarios:
                shots = ", ".join(r.screenshots) or "no screenshots"
                print(f"  {'PASS' if r.passed else 'FAIL'} {folder}/{Path(r.file).name} ({r.runner}, "
                      f"{r.duration_s:.2f}s): {shots}")
                for f in r.failures:
                    print(f"    {f.line()}")
            passed += report.passed
            total += len(report.scenarios)
            counts.append(f"{folder}: {report.passed} of {len(report.scenarios)}")
    return passed == total and total > 0, f"{passed} of {total} scenarios passed ({', '.join(counts)})"


SECTIONS: list[tuple[str, Callable[[Path], tuple[bool, str]]]] = [
    ("in-process agent with real tools", section_agent),
    ("example playbook tests (pytest)", section_playbook_tests),
    ("example scenarios, in-process", section_scenarios_in_process),
    ("example scenarios over HTTP: mock LLM server + autocue agent CLI", section_scenarios_http),
    ("example orchestrator loop (mock backend)", section_loop),
    ("example terminal runs: autocue run on tui/ and mock-agent/", section_runner),
]


def _description() -> str:
    """The module docstring and, from ``SECTIONS`` (so --help cannot drift from what runs), each section."""
    import textwrap

    lines = [(__doc__ or "").strip(), "", "sections:"]
    for i, (name, fn) in enumerate(SECTIONS, 1):
        lines.append(f"  {i}. {name}")
        what = " ".join((fn.__doc__ or "").split())
        lines += textwrap.wrap(what, 92, initial_indent="     ", subsequent_indent="     ")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = CliParser(prog="autocue demo", description=_description(),
                   formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.parse_args(argv)
    from autocue.example_files import ExamplesNotFoundError, copy_examples

    results: list[SectionResult] = []
    with tempfile.TemporaryDirectory(prefix="autocue-demo-examples-") as tmp:
        examples = Path(tmp) / "examples"
        try:
            copy_examples(examples)
        except ExamplesNotFoundError as e:
            return fail("autocue demo", str(e), 1)
        for name, fn in SECTIONS:
            _print_header(name)
            t0 = time.perf_counter()
            try:
                ok, detail = fn(examples)
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
