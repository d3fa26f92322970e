"""``create_agent_session``: settings, resources and extensions loaded, then a bound ``AgentSession``.

With ``discover=True`` (default) settings, skills, prompt templates and extensions are also
looked up in ``<cwd>/.autocue/`` and ``$AUTOCUE_DIR`` (``~/.autocue``) and the
``autocue.extensions`` entry points; ``discover=False`` uses only what is passed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from autocue.agent.tool import AgentTool
from autocue.extensions.events import SessionDirectoryEvent
from autocue.extensions.loader import ExtensionSpec, ExtensionsResult, finish_loading, load_extensions
from autocue.extensions.ui import ExtensionUIContext
from autocue.llm.stream import Provider
from autocue.llm.types import Model
from autocue.session.agent_session import AgentSession
from autocue.session.manager import SessionManager
from autocue.session.resources import Skill, load_resources
from autocue.session.settings import Settings
from autocue.session.ttsr import load_rule_files


@dataclass(slots=True)
class CreateAgentSessionResult:
    session: AgentSession
    extensions_result: ExtensionsResult

    def __iter__(self) -> Any:
        return iter((self.session, self.extensions_result))


async def create_agent_session(
    *,
    provider: Provider,
    model: Model | None = None,
    cwd: str | os.PathLike[str] | None = None,
    session_manager: SessionManager | None = None,
    settings: Settings | None = None,
    tools: Sequence[AgentTool] | Mapping[str, AgentTool] | None = None,
    active_tools: Sequence[str] | None = None,
    extensions: Sequence[ExtensionSpec] = (),
    extension_factories: Sequence[Callable[[Any], Any]] = (),
    discover: bool = True,
    agent_dir: str | os.PathLike[str] | None = None,
    ui: ExtensionUIContext | None = None,
    has_ui: bool | None = None,
    system_prompt: str = "",
    thinking_level: str | None = None,
    skills: Sequence[Skill | str | os.PathLike[str]] | None = None,
    flag_values: dict[str, Any] | None = None,
    bind: bool = True,
    session_directory: bool = False,
) -> CreateAgentSessionResult:
    """Load settings (user, project), resources and extensions, build the session and bind it.

    With ``discover=True`` (default) settings, skills, prompt templates, extensions, subagent
    types (``agents/*.md``) and TTSR rules (``rules/*.md``) are also looked up in
    ``<cwd>/.autocue/`` and ``$AUTOCUE_DIR`` (``~/.autocue``) and the ``autocue.extensions``
    entry points; ``discover=False`` uses only what is passed. ``session_directory=True`` (the CLI
    starting a new persisted session) fires ``session_directory``; a returned ``session_dir`` is
    where the new session file goes.
    """
    c = os.path.abspath(os.fspath(cwd)) if cwd is not None else os.getcwd()
    if settings is None:
        settings = Settings.load(c, agent_dir) if discover else Settings()
    resources = load_resources(
        c, agent_dir=agent_dir, skill_paths=settings.skills, prompt_paths=settings.prompts, discover=discover
    )
    specs = list(extensions) + list(settings.extensions)
    ext = load_extensions(
        specs, cwd=c, factories=extension_factories, discover=discover, agent_dir=agent_dir, flag_values=flag_values
    )
    await finish_loading(ext)
    session = AgentSession(
        provider=provider, model=model, session_manager=session_manager,
        # the extensions of the settings are loaded above: the session must not load them again
        settings=replace(settings, extensions=[]) if settings.extensions else settings, cwd=c,
        tools=tools, active_tools=active_tools, extensions=ext,
        ui=ui, has_ui=has_ui, system_prompt=system_prompt, thinking_level=thinking_level, resources=resources,
        skills=skills, flag_values=flag_values,
    )
    if session_directory and ext.runner.has("session_directory") and session.session_manager.is_persisted():
        d = await ext.runner.emit_session_directory(SessionDirectoryEvent(c))
        if d is not None:
            session.session_manager.set_session_dir(os.path.join(c, os.path.expanduser(d)))
    if discover:
        if session.subagents is not None:
            session.subagents.reload_types(os.fspath(agent_dir) if agent_dir is not None else None)
        rules, problems = load_rule_files(c, agent_dir)
        for r in rules:
            session.ttsr.add_rule(r)
        session.ttsr.diagnostics += problems
    if bind:
        await session.bind_extensions()
    return CreateAgentSessionResult(session, ext)


__all__ = ["CreateAgentSessionResult", "create_agent_session"]
