"""How a run of a real agent CLI is prepared from its launch profile.

A profile is data (``AgentProfile``, in ``autocue.catalog.launch``; each CLI's in its catalogue
entry, ``autocue.catalog.clis``): the binary, its print-mode and TUI command lines, the env
and the config files that point it at the embedded mock LLM server, per wire protocol
(``server.llmApiStyle``). ``prepare`` fills the placeholders for one run — a fresh ``HOME`` under
the run's state dir, the run's base URLs and session key, the workspace, the prompt — writes
the seeded files and returns the argv and env. Placeholders (in args, env values and file
contents): ``{home}``, ``{workspace}``, ``{base_url}``, ``{openai_base_url}``, ``{api_key}``,
``{api_key_tail}`` (its last 20 characters), ``{prompt}``, ``{prompt_json}`` (a JSON string
literal), plus the values of the chosen API's entry in ``apis``. An argument that is exactly
``{prompt_words}`` becomes the prompt's words, one argument each.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from autocue.catalog.launch import API_ALIASES, AgentProfile


@dataclass(frozen=True, slots=True)
class RunValues:
    workspace: Path
    home: Path
    base_url: str
    openai_base_url: str
    api_key: str
    prompt: str
    api_style: str
    sandboxed: bool = False
    """The run is in an autocue sandbox: the profile's ``in_sandbox`` replacements apply."""


def search_path() -> str:
    """``$AUTOCUE_AGENTS_DIR/bin`` (when the variable is set), then ``PATH``."""
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    d = os.environ.get("AUTOCUE_AGENTS_DIR")
    return os.pathsep.join([str(Path(d) / "bin"), path]) if d else path


def find_binary(profile: AgentProfile) -> str | None:
    """The CLI's executable: ``$AUTOCUE_AGENTS_DIR/bin`` first, then ``PATH``."""
    return shutil.which(profile.binary, path=search_path())


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each ``{name}`` of ``values`` (other braces stay: JSON and TOML templates are safe)."""
    if "{" not in text:
        return text
    return re.sub(r"\{([a-z_]+)\}", lambda m: values.get(m.group(1), m.group(0)), text)


def values_for(profile: AgentProfile, run: RunValues) -> dict[str, str]:
    values = {"home": str(run.home), "workspace": str(run.workspace), "base_url": run.base_url,
              "openai_base_url": run.openai_base_url, "api_key": run.api_key, "api_key_tail": run.api_key[-20:],
              "prompt": run.prompt, "prompt_json": json.dumps(run.prompt)}
    extra = profile.apis.get(profile.api_for(run.api_style), {})
    values.update({k: fill(v, values) for k, v in extra.items()})
    return values


def prepare(profile: AgentProfile, run: RunValues, *, binary: str, interactive: bool,
            extra_args: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """Seed ``run.home`` and return ``(argv, env additions)`` for one run."""
    values = values_for(profile, run)
    run.home.mkdir(parents=True, exist_ok=True)
    for d in profile.dirs:
        (run.home / fill(d, values)).mkdir(parents=True, exist_ok=True)
    for rel, text in profile.files.items():
        path = run.home / fill(rel, values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fill(text, values), encoding="utf-8")
    template = profile.tui_args if interactive and profile.tui_args is not None else profile.print_args
    argv = [binary]
    for tok in template:
        if tok == "{prompt_words}":
            argv.extend(run.prompt.split())
        else:
            argv.append(fill(tok, values))
    if run.sandboxed and profile.in_sandbox:
        swap = dict(profile.in_sandbox)
        argv = [argv[0], *(swap.get(a, a) for a in argv[1:])]
    argv.extend(fill(a, values) for a in extra_args)
    env = {"HOME": str(run.home), "XDG_CONFIG_HOME": str(run.home / ".config"),
           "XDG_DATA_HOME": str(run.home / ".local/share"), "XDG_CACHE_HOME": str(run.home / ".cache"),
           "XDG_STATE_HOME": str(run.home / ".local/state"), "LANG": "C.UTF-8", "COLORTERM": "truecolor",
           "DO_NOT_TRACK": "1", "PATH": search_path()}
    env.update({k: fill(v, values) for k, v in profile.env.items()})
    return argv, env


__all__ = ["API_ALIASES", "AgentProfile", "RunValues", "fill", "find_binary", "prepare", "search_path", "values_for"]
