"""Skills and prompt templates: markdown files with YAML front matter, as pi discovers them.

Where (project first, then user; the first of a name wins):

* skills: ``<cwd>/.autocue/skills/`` and ``$AUTOCUE_DIR/skills/`` (default ``~/.autocue/skills/``),
  plus extra paths. A skill is a directory holding ``SKILL.md`` (searched recursively) or a
  ``.md`` file directly in a skills root. Front matter: ``name`` (default: the directory or file
  name), ``description`` (required; a skill without one is skipped with a diagnostic),
  ``disable-model-invocation`` (keep it out of the system prompt).
* prompt templates: ``*.md`` in ``<cwd>/.autocue/prompts/`` and ``$AUTOCUE_DIR/prompts/``, plus
  extra paths. The name is the file name without ``.md``; ``description`` comes from the front
  matter or the first non-empty line.

Injection, as pi does it: ``format_skills_for_prompt`` appends an ``<available_skills>`` block to
the system prompt (only when the ``read`` tool is active); ``/skill:name args`` expands to a
``<skill name=".." location="..">`` block; ``/template args`` expands the template with ``$1``,
``$2``, ..., ``$@`` / ``$ARGUMENTS`` (all arguments) and ``${@:N}`` / ``${@:N:L}`` (a slice).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar
from xml.sax.saxutils import escape

from autocue.session.session_dir import autocue_dir
from autocue.yamlpos import YamlError, parse_document

Source = Literal["project", "user", "path"]
_QUOT = {'"': "&quot;"}


@dataclass(slots=True)
class Skill:
    name: str
    description: str
    file_path: str
    base_dir: str
    source: Source
    disable_model_invocation: bool = False


@dataclass(slots=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: str
    source: Source


@dataclass(slots=True)
class Resources:
    skills: list[Skill] = field(default_factory=list)
    prompts: list[PromptTemplate] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    """Files that were skipped, and why (``file: problem``)."""

    def merge(self, other: Resources) -> None:
        """Add ``other``'s skills and prompt templates whose name is new, and its diagnostics."""
        _add_new(self.skills, other.skills, "skill", None)
        _add_new(self.prompts, other.prompts, "prompt template", None)
        self.diagnostics += other.diagnostics


_Named = TypeVar("_Named", Skill, PromptTemplate)
_T = TypeVar("_T")


def _add_new(have: list[_Named], found: Sequence[_Named], what: str, diags: list[str] | None) -> None:
    """Append each of ``found`` whose name ``have`` does not hold yet (else a diagnostic, when ``diags`` is given)."""
    names = {x.name for x in have}
    for x in found:
        if x.name not in names:
            names.add(x.name)
            have.append(x)
        elif diags is not None:
            diags.append(f"{x.file_path}: {what} {x.name!r} is already defined; skipped")


def parse_front_matter(text: str, where: str = "<text>") -> tuple[dict[str, Any], str]:
    """Split ``---`` YAML front matter from the body. Raises ``ValueError`` naming ``where`` on bad YAML."""
    if not text.startswith("---") or (lines := text.splitlines(keepends=True))[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return {}, text
    try:  # the front matter starts on line 2 of the file
        doc = parse_document("\n" + "".join(lines[1:end]), where)
    except YamlError as e:
        why = e.message.removeprefix("invalid YAML: ")
        raise ValueError(f"{e.pos}: invalid YAML front matter: {why}") from None
    data = doc.v if doc is not None and doc.v is not None else {}
    if not isinstance(data, dict):
        raise ValueError(f"{where}:2:1: front matter must be a mapping, got {type(data).__name__}")
    return data, "".join(lines[end + 1 :])


# ---------------------------------------------------------------------------- discovery


def load_resources(
    cwd: str | os.PathLike[str],
    *,
    agent_dir: str | os.PathLike[str] | None = None,
    skill_paths: Sequence[str | os.PathLike[str]] = (),
    prompt_paths: Sequence[str | os.PathLike[str]] = (),
    discover: bool = True,
) -> Resources:
    """Discover skills and prompt templates (see the module docstring)."""
    res = Resources()
    root = autocue_dir(agent_dir)

    def roots(folder: str, paths: Sequence[str | os.PathLike[str]]) -> list[tuple[Path, Source]]:
        found: list[tuple[Path, Source]] = [(Path(cwd) / ".autocue" / folder, "project"), (root / folder, "user")]
        return (found if discover else []) + [(_resolve(p, cwd), "path") for p in paths]

    for path, source in roots("skills", skill_paths):
        _add_new(res.skills, _skills_in(path, source, res.diagnostics), "skill", res.diagnostics)
    for path, source in roots("prompts", prompt_paths):
        _add_new(res.prompts, _prompts_in(path, source, res.diagnostics), "prompt template", res.diagnostics)
    return res


def load_markdown_files(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None, folder: str, load: Callable[[Path], _T],
) -> tuple[list[_T], list[str]]:
    """``load`` of each ``$AUTOCUE_DIR/<folder>/*.md``, then of each ``<cwd>/.autocue/<folder>/*.md``; a
    file it raises ``OSError`` or ``ValueError`` for is skipped and its problem listed instead."""
    loaded: list[_T] = []
    problems: list[str] = []
    for d in (autocue_dir(agent_dir) / folder, Path(cwd) / ".autocue" / folder):
        for p in sorted(d.glob("*.md")) if d.is_dir() else ():
            try:
                loaded.append(load(p))
            except (OSError, ValueError) as e:
                problems.append(str(e))
    return loaded, problems


def _resolve(p: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> Path:
    path = Path(p).expanduser()
    return path if path.is_absolute() else Path(cwd) / path


def _skills_in(path: Path, source: Source, diags: list[str]) -> list[Skill]:
    files: list[Path] = [path] if path.is_file() else []
    if path.is_dir():
        for p in sorted(path.iterdir()):
            if p.name.startswith("."):
                continue
            if p.is_file() and p.suffix == ".md":
                files.append(p)
            elif p.is_dir():
                files += sorted(p.rglob("SKILL.md"))
    return [sk for f in files if (sk := load_skill(f, source, diags)) is not None]


def load_skill(path: Path, source: Source = "path", diags: list[str] | None = None) -> Skill | None:
    """One skill file; ``None`` (with a diagnostic) when it is unreadable or has no description."""
    where = str(path)
    try:
        meta, _ = parse_front_matter(path.read_text(encoding="utf-8"), where)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        if diags is not None:
            diags.append(f"{where}: {e}")
        return None
    default_name = path.parent.name if path.name == "SKILL.md" else path.stem
    name = str(meta.get("name") or default_name)
    desc = meta.get("description")
    if not desc:
        if diags is not None:
            diags.append(f"{where}: skill {name!r} has no description in its front matter; skipped")
        return None
    return Skill(
        name, str(desc).strip(), str(path.resolve()), str(path.parent.resolve()), source,
        bool(meta.get("disable-model-invocation") or meta.get("disable_model_invocation")),
    )


def _prompts_in(path: Path, source: Source, diags: list[str]) -> list[PromptTemplate]:
    files = [path] if path.is_file() else sorted(p for p in path.glob("*.md") if p.is_file()) if path.is_dir() else []
    out: list[PromptTemplate] = []
    for f in files:
        try:
            meta, body = parse_front_matter(f.read_text(encoding="utf-8"), str(f))
        except (OSError, ValueError, UnicodeDecodeError) as e:
            diags.append(f"{f}: {e}")
            continue
        desc = meta.get("description")
        if not desc:
            first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
            desc = first[:60] + ("..." if len(first) > 60 else "")
        out.append(PromptTemplate(f.stem, str(desc), body, str(f.resolve()), source))
    return out


# ---------------------------------------------------------------------------- injection


def format_skills_for_prompt(skills: Sequence[Skill]) -> str:
    """The ``<available_skills>`` block appended to the system prompt ("" when there is none)."""
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "\n\nThe following skills provide specialized instructions for specific tasks.",
        "Use the read tool to load a skill's file when the task matches its description.",
        "When a skill file references a relative path, resolve it against the skill directory "
        "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
        "",
        "<available_skills>",
    ]
    for s in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape(s.name, _QUOT)}</name>",
            f"    <description>{escape(s.description, _QUOT)}</description>",
            f"    <location>{escape(s.file_path, _QUOT)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: Sequence[Skill]) -> str:
    """``/skill:name args`` → ``<skill name=".." location="..">body</skill>`` (+ args); else ``text``."""
    if not text.startswith("/skill:"):
        return text
    head, _, args = text[len("/skill:") :].partition(" ")
    skill = next((s for s in skills if s.name == head), None)
    if skill is None:
        return text
    try:
        _, body = parse_front_matter(Path(skill.file_path).read_text(encoding="utf-8"), skill.file_path)
    except (OSError, ValueError):
        return text
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body.strip()}\n</skill>"
    )
    args = args.strip()
    return f"{block}\n\n{args}" if args else block


def parse_command_args(args: str) -> list[str]:
    """Split template arguments like a shell (quotes group words); falls back to whitespace."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


_SLICE = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}")
_POS = re.compile(r"\$(\d+)")


def substitute_args(content: str, args: list[str]) -> str:
    """Fill ``$1``.., ``$@``, ``$ARGUMENTS``, ``${@:N}``, ``${@:N:L}``."""

    def slice_(m: re.Match[str]) -> str:
        start = max(int(m.group(1)) - 1, 0)
        part = args[start:] if m.group(2) is None else args[start : start + int(m.group(2))]
        return " ".join(part)

    out = _SLICE.sub(slice_, content)
    out = _POS.sub(lambda m: args[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(args) else "", out)
    joined = " ".join(args)
    return out.replace("$ARGUMENTS", joined).replace("$@", joined)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str:
    """``/name args`` → the template with arguments filled in; other text unchanged."""
    if not text.startswith("/"):
        return text
    name, _, args = text[1:].partition(" ")
    tpl = next((t for t in templates if t.name == name), None)
    if tpl is None:
        return text
    return substitute_args(tpl.content, parse_command_args(args))




def with_skills_and_prompts(
    res: Resources,
    cwd: str,
    skills: Sequence[Skill | str | os.PathLike[str]] | None,
    prompt_templates: Sequence[PromptTemplate] | None,
) -> Resources:
    """``res`` with ``skills`` (objects, or paths loaded from ``cwd``) and ``prompt_templates`` in
    place of its own, where given (a session's ``skills=`` / ``prompt_templates=``)."""
    if skills is not None:
        res.skills = []
        for s in skills:
            if isinstance(s, Skill):
                res.skills.append(s)
            else:
                found = load_resources(cwd, skill_paths=[s], discover=False)
                res.skills.extend(found.skills)
                res.diagnostics.extend(found.diagnostics)
    if prompt_templates is not None:
        res.prompts = list(prompt_templates)
    return res


__all__ = [
    "PromptTemplate", "Resources", "Skill", "expand_prompt_template", "expand_skill_command",
    "format_skills_for_prompt", "load_markdown_files", "load_resources", "load_skill", "parse_command_args",
    "parse_front_matter", "substitute_args", "with_skills_and_prompts",
]
