"""Subagent types: the built-in five (seed 002) and user-defined ones from Markdown files.

A type names the tools a child session gets, its system prompt and optionally a model
pattern. User types are ``*.md`` files with front matter::

    ---
    name: security
    description: Look for security problems
    tools: [read, grep]          # or "read, grep"; omitted = every tool of the parent
    model: anthropic/claude-*    # optional model pattern
    ---
    You review code for security problems. ...   (the body is the system prompt)

They are looked up in ``$AUTOCUE_DIR/agents/`` (``~/.autocue/agents``) then
``<cwd>/.autocue/agents/``; a project type replaces a user type of the same name, and both
may replace a built-in one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from autocue.session.resources import load_markdown_files, parse_front_matter

ALL_TOOLS: tuple[str, ...] = ("*",)
"""The tool list of a type that gets every tool of the parent (but ``task``)."""


@dataclass(slots=True)
class AgentType:
    name: str
    description: str
    tools: tuple[str, ...]
    system_prompt: str
    model: str | None = None
    source: str = "builtin"
    """``builtin`` or the path of the Markdown file."""

    def tool_names(self, available: Sequence[str]) -> list[str]:
        """The tools a child of this type gets from ``available`` (the parent's tools)."""
        if self.tools == ALL_TOOLS:
            return [n for n in available if n != "task"]
        return [n for n in self.tools if n in available]


_RESULT_HINT = (
    "\n\nWork only on your assignment. When you are done, answer with your findings"
    " (or call submit_result when you are asked for structured output)."
)

BUILTIN_AGENT_TYPES: dict[str, AgentType] = {
    "explore": AgentType(
        "explore", "Scout the codebase: find files, read them, report what is where", ("read", "find", "grep"),
        "You are a scout. Explore the codebase to answer the assignment: find the relevant files, read them and"
        " report what you found, with paths." + _RESULT_HINT,
    ),
    "plan": AgentType(
        "plan", "Create an architecture plan", ("read", "grep"),
        "You are a planner. Read the relevant code and write a step-by-step architecture plan for the"
        " assignment; do not change any file." + _RESULT_HINT,
    ),
    "builder": AgentType(
        "builder", "Write the implementation", ALL_TOOLS,
        "You are a builder. Implement the assignment: change the files, run what checks the code, and report"
        " what you changed." + _RESULT_HINT,
    ),
    "reviewer": AgentType(
        "reviewer", "Review code", ("read", "grep"),
        "You are a reviewer. Read the code named in the assignment and report problems, each with its file,"
        " line and a suggested fix." + _RESULT_HINT,
    ),
    "task": AgentType(
        "task", "A generic worker", ALL_TOOLS,
        "You are a worker agent. Carry out the assignment with the tools you have." + _RESULT_HINT,
    ),
}

_MODEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._*-]*(/[A-Za-z0-9*][A-Za-z0-9._:*/-]*)?$")


def check_model_pattern(pattern: str, where: str) -> str:
    """``provider/model`` or ``model``, where ``*`` matches anything; raises ``ValueError`` naming ``where``."""
    p = pattern.strip()
    if not p or not _MODEL_PATTERN.match(p):
        raise ValueError(
            f"{where}: model {pattern!r} is not a model pattern; write provider/model-id (a * matches any"
            " characters), e.g. anthropic/claude-*"
        )
    return p


@dataclass(slots=True)
class AgentTypes:
    """The types a session knows, and what was wrong with the files that were skipped."""

    types: dict[str, AgentType] = field(default_factory=lambda: dict(BUILTIN_AGENT_TYPES))
    diagnostics: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentType:
        t = self.types.get(name)
        if t is None:
            raise ValueError(f"unknown agent type {name!r}; known types: {', '.join(sorted(self.types))}")
        return t


def load_agent_type(path: Path) -> AgentType:
    """One Markdown agent file; raises ``ValueError`` naming the file and the problem."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"{where}: cannot read the agent file ({e.strerror or e})") from None
    meta, body = parse_front_matter(text, where)
    unknown = set(meta) - {"name", "description", "tools", "model"}
    if unknown:
        raise ValueError(f"{where}: unknown front matter key(s) {sorted(unknown)}; use name, description, tools, model")
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ValueError(f"{where}: name must be letters, digits, _ or -, got {name!r}")
    desc = meta.get("description", "")
    if not isinstance(desc, str):
        raise ValueError(f"{where}: description must be a string, got {desc!r}")
    tools = meta.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools)):
        raise ValueError(f"{where}: tools must be a list of tool names (or a comma-separated string), got {tools!r}")
    model = meta.get("model")
    if model is not None:
        if not isinstance(model, str):
            raise ValueError(f"{where}: model must be a string, got {model!r}")
        model = check_model_pattern(model, where)
    prompt = body.strip()
    if not prompt:
        raise ValueError(f"{where}: the body (the agent's system prompt) is empty")
    return AgentType(name, desc, ALL_TOOLS if tools is None else tuple(tools), prompt, model, where)


def load_agent_types(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None, *, discover: bool = True
) -> AgentTypes:
    """Built-in types, then ``$AUTOCUE_DIR/agents/*.md``, then ``<cwd>/.autocue/agents/*.md``.

    A broken file is skipped and named in ``diagnostics`` (a session must still start)."""
    out = AgentTypes()
    if not discover:
        return out
    types, out.diagnostics = load_markdown_files(cwd, agent_dir, "agents", load_agent_type)
    out.types.update((t.name, t) for t in types)
    return out


__all__ = [
    "ALL_TOOLS",
    "BUILTIN_AGENT_TYPES",
    "AgentType",
    "AgentTypes",
    "check_model_pattern",
    "load_agent_type",
    "load_agent_types",
]
