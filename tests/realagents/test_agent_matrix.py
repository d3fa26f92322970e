"""The examples/agents/ matrix: every scenario against every real agent CLI through its launch profile
(``autocue run --agent NAME``), in print mode and, where the CLI has one, in its TUI.

A test runs when the CLI is installed (``$AUTOCUE_AGENTS_DIR/bin`` or ``PATH``; ``bash
scripts/real-agents.sh`` or ``autocue agents install NAME`` installs the pinned versions) and is
skipped otherwise, with the reason naming the CLI and how to install it.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from doc_blocks import ROOT

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary
from autocue.runner.report import ScenarioResult

EXAMPLES = ROOT / "examples" / "agents"
PRINT = sorted(p.name for p in EXAMPLES.glob("*.yaml") if not p.name.startswith("tui_"))
TUI = sorted(p.name for p in EXAMPLES.glob("tui_*.yaml"))
AGENTS = ["claude", "codex", "opencode", "pi", "gemini", "aider"]
TUI_AGENTS = ["claude", "codex", "opencode", "pi", "gemini", "aider"]
OVER_BEDROCK = ["claude"]
"""CLIs that also run every scenario over AWS Bedrock (``server.llmApiStyle: bedrock``)."""
NOT_APPLICABLE = {("aider", "shell_answer.yaml"): "aider makes no tool calls: it cannot run a shell command"}


def need(agent: str) -> None:
    if find_binary(BUILTIN[agent]) is None:
        p = BUILTIN[agent]
        pytest.skip(f"{p.binary} ({p.installer} {p.package}) is not installed in $AUTOCUE_AGENTS_DIR/bin or on "
                    f"PATH: run `autocue agents install {agent}` or `bash scripts/real-agents.sh`")


def check(agent: str, scenario: str, tmp_path: Path, timeout: float, style: str = "") -> ScenarioResult:
    # a copy in tmp_path, not in CI mode: its screenshots' goldens (one agent's screen each) are written
    # there on this first run instead of into examples/; with ``style``, the copy names its wire protocol
    copy = tmp_path / "scenario" / scenario
    copy.parent.mkdir()
    shutil.copy(EXAMPLES / scenario, copy)
    if style:
        copy.write_text(f"server: {{llmApiStyle: {style}}}\n" + copy.read_text(encoding="utf-8"), encoding="utf-8")
    report = run_scenarios(copy, agent=agent, out=tmp_path / "runs", timeout=timeout, ci=False)
    [r] = report.scenarios
    lines = [f.line() for f in r.failures] + r.diagnostics + ["last screen:", r.last_screen]
    assert r.passed, f"{agent} {scenario}:\n" + "\n".join(lines)
    assert not [s for s in r.side_requests if s["kind"] == "suspected"], r.side_requests
    if r.ended_by_runner:  # a TUI timeline with no quit input: the profile's quit input must quit the CLI
        assert r.ended_by_runner == "quit input", f"{agent} {scenario}: {r.transcript[-1]}"
    return r


@pytest.mark.slow
@pytest.mark.parametrize("scenario", PRINT)
@pytest.mark.parametrize("agent", AGENTS)
def test_print_mode(agent: str, scenario: str, tmp_path: Path) -> None:
    if (agent, scenario) in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[agent, scenario])
    need(agent)
    check(agent, scenario, tmp_path, 100)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", TUI)
@pytest.mark.parametrize("agent", TUI_AGENTS)
def test_tui_mode(agent: str, scenario: str, tmp_path: Path) -> None:
    need(agent)
    check(agent, scenario, tmp_path, 110)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", PRINT + TUI)
@pytest.mark.parametrize("agent", OVER_BEDROCK)
def test_over_bedrock(agent: str, scenario: str, tmp_path: Path) -> None:
    """The scenario with ``server.llmApiStyle: bedrock``: the CLI signs SigV4 calls to the mock server's
    Bedrock runtime (Claude Code: ``CLAUDE_CODE_USE_BEDROCK=1``, its model probes answered as side calls)."""
    need(agent)
    r = check(agent, scenario, tmp_path, 110, style="bedrock")
    assert any(s["last"] == "." for s in r.side_requests), "no Bedrock model probe: did it run over Bedrock?"


def test_claude_over_bedrock_gets_bedrock_env_and_the_run_key_as_access_key_id(tmp_path: Path) -> None:
    from autocue.runner.agents.base import RunValues, prepare

    def env(style: str) -> dict[str, str]:
        run = RunValues(tmp_path, tmp_path / style, "http://127.0.0.1:9/s/k1", "http://127.0.0.1:9/s/k1/v1", "k1",
                        "hi", style)
        return prepare(BUILTIN["claude"], run, binary="claude", interactive=False)[1]

    bedrock, direct = env("bedrock"), env("anthropic")
    assert (bedrock["CLAUDE_CODE_USE_BEDROCK"], bedrock["ANTHROPIC_BEDROCK_BASE_URL"]) == ("1", "http://127.0.0.1:9/s/k1")
    assert (bedrock["AWS_ACCESS_KEY_ID"], bedrock["AWS_REGION"]) == ("k1", "us-east-1")
    assert (direct["CLAUDE_CODE_USE_BEDROCK"], direct["ANTHROPIC_BASE_URL"]) == ("", "http://127.0.0.1:9/s/k1")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["tui_two_turns.yaml", "tui_typed_prompt.yaml"])
@pytest.mark.parametrize("agent", TUI_AGENTS)
def test_tui_mode_when_the_cli_starts_late(agent: str, scenario: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI starts 2 s after its process (a cold start: an empty, quiet screen and an idle process
    tree, so a quiet screen alone would let the prompt be typed then): the initial prompt, or the
    prompt typed as the first ``userInputs`` event, must still reach it. Typed too early, opencode's
    blank start-up frame dropped the keys, pi did not take the Enter, and Codex 0.169 showed the
    typed prompt but never sent it (``tui_typed_prompt``, before the first ``userInputs`` waited);
    their profiles' ``ready`` texts make the executor wait for the input box."""
    need(agent)
    real = find_binary(BUILTIN[agent])
    late = tmp_path / "late" / "bin" / BUILTIN[agent].binary
    late.parent.mkdir(parents=True)
    late.write_text(f'#!/bin/sh\nsleep 2\nexec {shlex.quote(str(real))} "$@"\n')
    late.chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(late.parent.parent))
    assert find_binary(BUILTIN[agent]) == str(late)
    check(agent, scenario, tmp_path, 110)


def test_every_cli_of_the_matrix_has_a_launch_profile_with_a_pinned_version() -> None:
    for name in AGENTS:
        p = BUILTIN[name]
        assert p.version and p.version in p.verified and p.package, name
    assert all(BUILTIN[a].tui_args is not None for a in TUI_AGENTS)
    assert PRINT == ["create_file.yaml", "edit_file.yaml", "rate_limit.yaml", "shell_answer.yaml"]


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["create_file.yaml", "rate_limit.yaml", "tui_two_turns.yaml"])
def test_codex_speaks_websocket(scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex's launch profile lets it use the Responses WebSocket (print and TUI): every model request in
    its journal came over the socket (a scripted 429 too, as an error event it retries), and no upgrade
    was refused (426) and answered over HTTP instead."""
    need("codex")
    from autocue.mockllm.app import MockApp
    from autocue.mockllm.journal import Journal

    seen: list[tuple[str, int]] = []
    refused: list[str] = []
    add, refuse = Journal.add, MockApp._refuse_websocket

    def spy_add(self: Journal, req: Any, status: int, outcome: str, reply: int | None) -> None:
        seen.append((req.transport, status))
        add(self, req, status, outcome, reply)

    async def spy_refuse(self: MockApp, scope: Any, send: Any) -> None:
        refused.append(scope["path"])
        await refuse(self, scope, send)

    monkeypatch.setattr(Journal, "add", spy_add)
    monkeypatch.setattr(MockApp, "_refuse_websocket", spy_refuse)
    check("codex", scenario, tmp_path, 110)
    assert seen and {t for t, _ in seen} == {"websocket"}, seen
    assert refused == []
    if scenario == "rate_limit.yaml":
        assert 429 in {s for _, s in seen}, seen


FLAKY_SOCKET = """\
name: flaky-socket
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
      - writeFile: {path: hello.txt, content: "hello from the agent\\n"}
    chaos: "reset=3*1"
  - assert:
      fs: {exists: [hello.txt]}
  - llmResponse:
      - assistant: [[0, "Done: hello.txt is written."]]
    chaos: "error=503*1;retry-after=10ms"
expect:
  exitCode: 0
  artifacts:
    - {type: file, pattern: hello.txt}
"""


@pytest.mark.slow
def test_codex_survives_chaos_on_its_websocket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reset mid-response drops Codex's socket (it opens another and asks again) and an injected 503
    is an error event (it retries): each faulted step is asked for twice, every time over the socket."""
    need("codex")
    from autocue.mockllm.journal import Journal

    seen: list[str] = []
    add = Journal.add

    def spy_add(self: Journal, req: Any, status: int, outcome: str, reply: int | None) -> None:
        seen.append(req.transport)
        add(self, req, status, outcome, reply)

    monkeypatch.setattr(Journal, "add", spy_add)
    scenario = tmp_path / "flaky_socket.yaml"
    scenario.write_text(FLAKY_SOCKET)
    report = run_scenarios(scenario, agent="codex", out=tmp_path / "runs", timeout=100, ci=False)
    [r] = report.scenarios
    assert r.passed, [f.line() for f in r.failures] + r.diagnostics
    assert seen == ["websocket"] * 4
