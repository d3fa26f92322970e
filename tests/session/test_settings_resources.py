"""Settings files (user then project) and skills / prompt templates from markdown with front matter."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from session_helpers import make_session, say

from autocue.llm.types import Context, TextContent
from autocue.script import ScriptedResponse
from autocue.session import Settings, SettingsError
from autocue.session.resources import (
    expand_prompt_template,
    expand_skill_command,
    format_skills_for_prompt,
    load_resources,
    parse_front_matter,
    substitute_args,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


# ---------------------------------------------------------------------------- settings


def test_defaults_match_pi() -> None:
    s = Settings()
    assert (s.retry.enabled, s.retry.max_retries, s.retry.base_delay_ms, s.retry.max_delay_ms) == (True, 3, 2000, 60000)
    assert (s.compaction.enabled, s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (True, 16384, 20000)


def test_user_then_project_merge_key_by_key(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "proj"
    write(user / "settings.json", '{"retry": {"maxRetries": 5, "baseDelayMs": 10}, "defaultThinkingLevel": "low",'
                                  ' "compaction": {"reserve_tokens": 1000}}')
    write(project / ".autocue" / "settings.json", '{"retry": {"base_delay_ms": 0}, "toolExecution": "sequential",'
                                                  ' "mystery": 1}')
    s = Settings.load(project, user)
    assert s.retry.max_retries == 5 and s.retry.base_delay_ms == 0
    assert s.compaction.reserve_tokens == 1000 and s.compaction.keep_recent_tokens == 20000
    assert s.default_thinking_level == "low" and s.tool_execution == "sequential"
    assert s.extra == {"mystery": 1} and "unknown settings key 'mystery'" in s.warnings[0]
    assert s.sources == [str(user / "settings.json"), str(project / ".autocue" / "settings.json")]


def test_autocue_dir_env_is_the_user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "u" / "settings.json", '{"retry": {"enabled": false}}')
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "u"))
    assert Settings.load(tmp_path / "nowhere").retry.enabled is False


def test_bad_settings_file_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / ".autocue" / "settings.json", '{\n  "retry": {\n    "maxRetries": 3,\n  }\n}')
    with pytest.raises(SettingsError, match=r"settings\.json:4:\d+: invalid JSON"):
        Settings.load(tmp_path, tmp_path / "nouser")
    with pytest.raises(SettingsError, match="toolExecution must be one of"):
        Settings.from_dict({"toolExecution": "random"})


async def test_settings_drive_the_session() -> None:
    s = Settings.from_dict({"toolExecution": "sequential", "followUpMode": "all", "defaultThinkingLevel": "medium"})
    session, _ = make_session([], settings_=s)
    assert session.agent.tool_execution == "sequential" and session.agent.follow_up_mode == "all"
    assert session.thinking_level == "medium"


# ---------------------------------------------------------------------------- resources


def test_front_matter() -> None:
    meta, body = parse_front_matter("---\nname: x\ndescription: does y\n---\nBody\n")
    assert meta == {"name": "x", "description": "does y"} and body == "Body\n"
    assert parse_front_matter("no front matter") == ({}, "no front matter")
    with pytest.raises(ValueError, match=r"where\.md:2:8: invalid YAML"):
        parse_front_matter("---\nname: [\n---\nx", "where.md")


def test_skill_and_template_discovery(tmp_path: Path) -> None:
    project, user = tmp_path / "proj", tmp_path / "user"
    write(project / ".autocue" / "skills" / "deploy" / "SKILL.md",
          "---\ndescription: Deploy the app\n---\nRun ./deploy.sh\n")
    write(project / ".autocue" / "skills" / "nodesc" / "SKILL.md", "---\nname: nodesc\n---\nx\n")
    write(user / "skills" / "deploy.md", "---\ndescription: user version\n---\nshadowed\n")
    write(user / "skills" / "lint.md", "---\nname: lint\ndescription: Lint <all> code\n---\nRun ruff\n")
    write(user / "skills" / "hidden" / "SKILL.md",
          "---\ndescription: internal\ndisable-model-invocation: true\n---\nx\n")
    write(project / ".autocue" / "prompts" / "review.md", "---\ndescription: Review a file\n---\nReview $1 for $2.\n")
    write(user / "prompts" / "fix.md", "Fix everything in $@\nsecond line\n")
    r = load_resources(project, agent_dir=user)
    assert [(s.name, s.source) for s in r.skills] == [("deploy", "project"), ("hidden", "user"), ("lint", "user")]
    assert any("no description" in d for d in r.diagnostics)
    assert any("already defined" in d for d in r.diagnostics)
    prompts = [(p.name, p.description) for p in r.prompts]
    assert prompts == [("review", "Review a file"), ("fix", "Fix everything in $@")]
    block = format_skills_for_prompt(r.skills)
    assert "<available_skills>" in block and "<name>deploy</name>" in block and "hidden" not in block
    assert "Lint &lt;all&gt; code" in block
    assert r.skills[0].file_path == str((project / ".autocue" / "skills" / "deploy" / "SKILL.md").resolve())


def test_template_and_skill_expansion(tmp_path: Path) -> None:
    write(tmp_path / ".autocue" / "prompts" / "review.md", "Review $1 for ${@:2}. All: $ARGUMENTS")
    skill = write(tmp_path / ".autocue" / "skills" / "deploy" / "SKILL.md",
                  "---\ndescription: Deploy\n---\nRun ./deploy.sh\n")
    r = load_resources(tmp_path, agent_dir=tmp_path / "none")
    out = expand_prompt_template('/review main.py "style issues" bugs', r.prompts)
    assert out == "Review main.py for style issues bugs. All: main.py style issues bugs"
    assert expand_prompt_template("/unknown x", r.prompts) == "/unknown x"
    expanded = expand_skill_command("/skill:deploy to staging", r.skills)
    assert expanded == (f'<skill name="deploy" location="{skill.resolve()}">\n'
                        f"References are relative to {skill.parent.resolve()}.\n\nRun ./deploy.sh\n</skill>\n\n"
                        "to staging")
    assert substitute_args("$1-$3", ["a"]) == "a-"


async def test_session_injects_skills_and_expands_commands(tmp_path: Path) -> None:
    from autocue.agent import AgentTool

    write(tmp_path / "skills" / "deploy" / "SKILL.md", "---\ndescription: Deploy\n---\nRun ./deploy.sh\n")
    write(tmp_path / ".autocue" / "prompts" / "greet.md", "Say hello to $1")
    seen: list[Any] = []

    def step(ctx: Context) -> ScriptedResponse:
        seen.append((ctx.system_prompt, ctx.messages[-1].text))
        return ScriptedResponse([TextContent("ok")])

    read = AgentTool("read", "read a file", None, lambda *a: "content")
    r = load_resources(tmp_path, agent_dir=tmp_path / "none")
    session, _ = make_session([step, step, step], tools=[read], cwd=tmp_path, system_prompt="BASE",
                              skills=[tmp_path / "skills"], resources=r)
    await session.prompt("/greet Ada")
    await session.prompt("/skill:deploy now")
    await session.prompt("/greet Bob", expand_prompt_templates=False)
    assert seen[0][0].startswith("BASE\n\nThe following skills") and "<name>deploy</name>" in seen[0][0]
    assert seen[0][1] == "Say hello to Ada"
    assert seen[1][1].startswith('<skill name="deploy"') and seen[1][1].endswith("now")
    assert seen[2][1] == "/greet Bob"
    cmds = {(c.name, c.source) for c in session.get_commands()}
    assert {("greet", "prompt"), ("skill:deploy", "skill")} <= cmds
    session.set_active_tools([])
    assert session.system_prompt == "BASE"  # no read tool, no skills block


async def test_resources_discover_adds_paths(tmp_path: Path) -> None:
    write(tmp_path / "extra" / "tpl.md", "From extension: $1")

    def ext(api: Any) -> None:
        api.on("resources_discover", lambda e: {"prompt_paths": [str(tmp_path / "extra")]})

    session, _ = make_session([say("ok")], extensions=[ext], cwd=tmp_path)
    await session.prompt("/tpl works")
    assert session.messages[0].text == "From extension: works"
