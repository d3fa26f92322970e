"""Launch profiles: which program a run starts, with what arguments and environment.

By precedence: ``--cmd``, ``--agent NAME``, the scenario's ``ah: {cmd, flags, env}`` block,
its top-level ``agent: NAME``, then the caller's fallback for scenarios that name no program
(pytest's ``--autocue-cmd`` / ``--autocue-agent``: ``RunOptions.default_cmd`` / ``default_agent``).
A command (and ``ah`` flags and env values) may use the
placeholders ``{base_url}``, ``{openai_base_url}``, ``{api_key}``, ``{workspace}``,
``{prompt}``, ``{python}`` (this Python), ``{scenario}`` and ``{scenario_dir}``. Profiles:

- ``autocue``: autocue's own agent CLI against the embedded mock LLM server (interactive when
  the timeline has ``userInputs`` for the TUI — ``target: tui`` or none —, else ``-p`` with
  ``initialPrompt``). ``server.llmApiStyle`` picks the wire protocol.
- ``mock``: ``autocue mock-agent`` on the scenario (no server; it reports its progress).
- a real agent CLI (one of the catalogue's, ``autocue.catalog.clis``: ``claude``, ``codex``, ...,
  or a user-defined profile): see ``autocue.runner.agents``.
- a command (``cmd``): run as given; it may reach the server through the placeholders or the
  ``AUTOCUE_BASE_URL`` / ``AUTOCUE_OPENAI_BASE_URL`` / ``AUTOCUE_API_KEY`` variables every
  program gets.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from autocue.catalog.apis import provider_api_for_style
from autocue.errors import nearest
from autocue.runner.errors import LaunchError as LaunchError
from autocue.runner.extras import RunnerExtras, TerminalProfile
from autocue.scenario import Scenario, UserInputs

if TYPE_CHECKING:
    from autocue.catalog.launch import AgentProfile
    from autocue.script.model import Script

PROFILES = ("autocue", "mock")
SETTLE = {"mock": 0.002}
"""Quiet-screen seconds per launch profile (others: ``DEFAULT_SETTLE``)."""
DEFAULT_SETTLE = 0.08
API_FOR_STYLE = provider_api_for_style()
"""``Model.api`` of autocue's provider per ``server.llmApiStyle`` (aliases included)."""
_SERVER_MARKS = ("{base_url}", "{openai_base_url}", "{api_key}", "AUTOCUE_BASE_URL", "AUTOCUE_OPENAI_BASE_URL",
                 "AUTOCUE_API_KEY")


class Endpoint(Protocol):
    """Where a launched program reaches its model: a run's mock-server session (``LlmRun``), or the
    recording proxy of ``autocue record --agent`` (``autocue.record.run_capture``)."""

    @property
    def base_url(self) -> str: ...

    @property
    def openai_base_url(self) -> str: ...

    @property
    def key(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Choice:
    """Which program, before the run's paths exist: ``runner`` names it in output paths."""

    runner: str
    profile: str | None = None
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    agent: AgentProfile | None = None
    """A real agent CLI's launch profile (``autocue.runner.agents``)."""
    agent_args: tuple[str, ...] = ()
    """``--agent-arg`` values, appended to the agent's command line."""
    source: str = "--agent"
    """What chose a launch profile, as messages name it (``--agent``, ``--autocue-agent``, ``agent``, ...)."""

    @property
    def settle(self) -> float:
        if self.agent is not None and self.profile != "autocue":
            return self.agent.settle
        return SETTLE.get(self.profile or "", DEFAULT_SETTLE)

    @property
    def key_gap(self) -> float:
        """Least seconds between a typed text and the key after it (0: as soon as it was echoed)."""
        return self.agent.key_gap if self.agent is not None and self.profile is None else 0.0

    @property
    def uses_server(self) -> bool:
        if self.profile == "autocue" or self.agent is not None:
            return True
        if self.profile == "mock":
            return False
        text = " ".join(self.command) + " " + " ".join(self.env.values())
        return any(m in text for m in _SERVER_MARKS)


@dataclass(slots=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    progress_file: Path | None = None
    """Where the mock agent reports replies done and tool failures (JSON lines)."""
    type_prompt: str | None = None
    """A real agent's TUI: the initial prompt, typed once its screen shows ``ready``."""
    stderr_file: Path | None = None
    """Where a real agent's stderr is copied (its tail goes into a failure's report)."""
    session_logs: str | None = None
    """A real agent's session logs (a glob under its private home), read for the tool calls it reports failed."""


def choose(scenario: Scenario, extras: RunnerExtras, *, cmd: str | None, agent: str | None,
           agent_args: tuple[str, ...] = (), agents_files: tuple[str, ...] = (), default_cmd: str | None = None,
           default_agent: str | None = None, flags: Mapping[str, str] | None = None) -> Choice:
    """The program for ``scenario``: ``cmd`` / ``agent`` over its own, ``default_cmd`` / ``default_agent`` when it
    names none. ``flags`` spells the options in messages, by ``RunOptions`` field (``autocue run``'s by default)."""
    fl = {"cmd": "--cmd", "agent": "--agent", **(flags or {})}
    if cmd is not None:
        return _command(cmd, fl["cmd"])
    if agent is not None:
        return _profile(agent, fl["agent"], agent_args, agents_files)
    if scenario.ah is not None and scenario.ah.cmd:
        try:
            argv = shlex.split(scenario.ah.cmd)
        except ValueError as e:
            raise LaunchError(f"ah.cmd {scenario.ah.cmd!r}: {e}") from None
        if argv and argv[0] in PROFILES and len(argv) == 1 and not scenario.ah.flags:
            return _profile(argv[0], "ah.cmd", agent_args, agents_files)
        return Choice("cmd", None, argv + list(scenario.ah.flags), dict(scenario.ah.env))
    if extras.agent is not None:
        return _profile(extras.agent, "agent", agent_args, agents_files)
    agent_flag, cmd_flag = fl.get("default_agent", fl["agent"]), fl.get("default_cmd", fl["cmd"])
    if default_cmd is not None:
        return _command(default_cmd, cmd_flag)
    if default_agent is not None:
        return _profile(default_agent, agent_flag, agent_args, agents_files)
    raise LaunchError(f"scenario {scenario.name!r} names no program to run: pass {agent_flag} "
                      f"{'|'.join(PROFILES)}|claude|... or {cmd_flag} 'COMMAND', or add `agent: mock` or an "
                      "`ah: {cmd: ...}` block")


def _command(cmd: str, where: str) -> Choice:
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise LaunchError(f"{where} {cmd!r}: {e}") from None
    if not argv:
        raise LaunchError(f"{where} is empty: give the command line of the program to test")
    return Choice("cmd", None, argv)


def _profile(name: str, where: str, agent_args: tuple[str, ...] = (), agents_files: tuple[str, ...] = ()) -> Choice:
    from autocue.catalog.registry import find_cli
    from autocue.runner.agents import profiles

    known = profiles(agents_files)
    cli = find_cli(name)
    if name not in known and cli is not None:  # another name of a built-in CLI: `claude-code` is `claude`
        name = cli.name
    found = known.get(name)
    own = find_cli("autocue")
    if name == "mock" or (name == "autocue" and own is not None and found is own.launch):
        return Choice(name, name, agent=found, agent_args=agent_args, source=where)
    if found is None:
        names = ["mock", *sorted(known)]
        near = nearest(name, names)
        guess = f"did you mean {near!r}? " if near else ""
        raise LaunchError(f"{where} {name!r}: unknown launch profile; {guess}(known: {', '.join(names)}); "
                          "declare it in a profiles file (--agents-file FILE) or use --cmd 'COMMAND'")
    return Choice(name, None, agent=found, agent_args=agent_args, source=where)


def script_for(choice: Choice, script: Script, workspace: Path | None = None) -> Script:
    """The script the server plays for ``choice``: for aider (no tools) its edit blocks (the tool
    profile is set on the run's server session: ``autocue.runner.llm.register``)."""
    agent = choice.agent
    if agent is not None and choice.profile is None and agent.name == "aider" and agent.source == "built-in":
        from autocue.runner.agents.aider import aider_script

        return aider_script(script, workspace)
    return script


def interactive(scenario: Scenario) -> bool:
    """autocue's CLI runs interactive when the timeline types into a TUI (``target: tui`` or none)."""
    return any(isinstance(e, UserInputs) and any((i.target or e.target or "tui") == "tui" for i in e.inputs)
               for e in scenario.timeline)


_CI_VARS = ("CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID")
_AGENT_PREFIXES = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CLAUDE_", "CODEX_", "OPENCODE_", "PI_", "AIDER_",
                   "AZURE_", "AWS_", "LITELLM_")


def base_env(terminal: TerminalProfile, workspace: Path, llm: Endpoint | None, *,
             agent: bool = False) -> dict[str, str]:
    """The program's environment: no ``CI`` variables (Gemini CLI exits 42 under ``CI=true``); for a
    real agent also none of the developer's model-provider settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "PYTEST_XDIST_WORKER", *_CI_VARS) and not k.startswith("CI_")
           and not (agent and k.startswith(_AGENT_PREFIXES))}
    env.update(TERM="xterm-256color", COLUMNS=str(terminal.width), LINES=str(terminal.height),
               AUTOCUE_WORKSPACE=str(workspace))
    if llm is not None:
        env.update(AUTOCUE_BASE_URL=llm.base_url, AUTOCUE_OPENAI_BASE_URL=llm.openai_base_url,
                   AUTOCUE_API_KEY=llm.key)
    return env


def build(choice: Choice, scenario: Scenario, *, terminal: TerminalProfile, workspace: Path, state_dir: Path,
          llm: Endpoint | None, llm_api: str | None = None, sandboxed: bool = False) -> Launch:
    """The program's command line and environment (``sandboxed``: it runs in an autocue sandbox)."""
    if choice.agent is not None and choice.profile is None:
        return _agent_launch(choice, choice.agent, scenario, terminal=terminal, workspace=workspace,
                             state_dir=state_dir, llm=llm, llm_api=llm_api, sandboxed=sandboxed)
    env = base_env(terminal, workspace, llm)
    prompt = scenario.initial_prompt or ""
    if choice.profile == "mock":
        from autocue.runner.mockagent import mock_agent_argv
        from autocue.runner.mockplan import plan_from_scenario

        progress = state_dir / "progress.jsonl"
        progress.touch()
        plan = state_dir / "plan.json"
        plan.write_text(json.dumps(plan_from_scenario(scenario)), encoding="utf-8")
        argv = mock_agent_argv(plan)
        env["AUTOCUE_MOCK_PROGRESS"] = str(progress)
        return Launch(argv, env, progress)
    if choice.profile == "autocue":
        assert llm is not None
        home = state_dir / "home"
        home.mkdir(parents=True, exist_ok=True)
        api = API_FOR_STYLE.get(scenario.server.llm_api_style, "openai-completions")
        url = llm.openai_base_url if api.startswith("openai") else llm.base_url
        models = {"providers": {"mock": {"base_url": url, "api": api, "api_key": llm.key,
                                         "models": [{"id": "mock-model", "context_window": 200000}]}}}
        (home / "models.json").write_text(json.dumps(models), encoding="utf-8")
        env["AUTOCUE_DIR"] = str(home)
        argv = [sys.executable, "-m", "autocue.cli.main", "--model", "mock/mock-model", "--no-discover",
                "--cwd", str(workspace), *choice.agent_args]
        if interactive(scenario):
            argv += [prompt] if prompt else []
        else:
            if not prompt:
                raise LaunchError(f"{choice.source} autocue runs `autocue -p` for a scenario without "
                                  "userInputs, which needs `initialPrompt:`")
            argv += ["-p", prompt]
        return Launch(argv, env)
    from autocue.runner.agents.base import fill

    values = {"workspace": str(workspace), "prompt": prompt, "python": sys.executable,
              "scenario": str(Path(scenario.file).resolve()), "scenario_dir": str(Path(scenario.file).resolve().parent)}
    if llm is not None:
        values.update(base_url=llm.base_url, openai_base_url=llm.openai_base_url, api_key=llm.key)
    env.update({k: fill(v, values) for k, v in choice.env.items()})
    return Launch([fill(t, values) for t in choice.command], env)


def _agent_launch(choice: Choice, agent: AgentProfile, scenario: Scenario, *, terminal: TerminalProfile,
                  workspace: Path, state_dir: Path, llm: Endpoint | None, llm_api: str | None,
                  sandboxed: bool = False) -> Launch:
    from autocue.catalog.launch import API_ALIASES
    from autocue.runner.agents.base import RunValues, find_binary, prepare

    assert llm is not None
    binary = find_binary(agent)
    if binary is None:
        how = (f"`autocue agents install {agent.name}`" if agent.package else "install it")
        raise LaunchError(f"{choice.source} {agent.name}: `{agent.binary}` is not installed (looked in "
                          f"$AUTOCUE_AGENTS_DIR/bin and PATH): {how}, or set AUTOCUE_AGENTS_DIR to where it is")
    if llm_api is not None and agent.api_for(llm_api) != API_ALIASES.get(llm_api, llm_api):
        raise LaunchError(f"--llm-api {llm_api}: {agent.name} does not speak it (it speaks: {', '.join(agent.apis)})")
    tui = interactive(scenario)
    if tui and agent.tui_args is None:
        raise LaunchError(f"{choice.source} {agent.name}: the scenario types into a TUI (userInputs), but {agent.name} "
                          "has no interactive mode in its profile: use target: cli inputs or print mode")
    prompt = scenario.initial_prompt or ""
    if not tui and not prompt:
        raise LaunchError(f"{choice.source} {agent.name} runs in print mode for a scenario without userInputs, which "
                          "needs `initialPrompt:`")
    values = RunValues(workspace=workspace, home=state_dir / "home", base_url=llm.base_url,
                       openai_base_url=llm.openai_base_url, api_key=llm.key, prompt=prompt,
                       api_style=llm_api or scenario.server.llm_api_style, sandboxed=sandboxed)
    argv, extra = prepare(agent, values, binary=binary, interactive=tui, extra_args=choice.agent_args)
    env = base_env(terminal, workspace, llm, agent=True)
    env.update(extra)
    stderr = state_dir / "stderr.log"
    wrapped = ["bash", "-c", 'exec 2> >(tee -a "$0" >&2); exec "$@"', str(stderr), *argv]
    logs = f"{glob.escape(str(values.home))}/{agent.session_logs}" if agent.session_logs else None
    return Launch(wrapped if shutil.which("bash") else argv, env, type_prompt=prompt if tui and prompt else None,
                  stderr_file=stderr, session_logs=logs)
