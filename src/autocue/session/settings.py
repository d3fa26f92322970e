"""Session settings from JSON: the user's file, then the project's (project wins, key by key).

Files: ``$AUTOCUE_DIR/settings.json`` (default ``~/.autocue/settings.json``), then
``<cwd>/.autocue/settings.json``. Keys may be camelCase (as pi writes them) or snake_case; the
keys, their meaning and defaults are the table in ``docs/session.md``.

Only these keys are normalised (snake_case to camelCase); unknown keys are kept in ``extra``
exactly as written (they belong to extensions) and listed in ``warnings``. Values are checked
strictly: a boolean must be ``true``/``false`` (the string ``"false"`` is an error, not true),
a count a whole number >= 0, a list a list of strings. A bad value, or a file that is not
valid JSON, raises ``SettingsError`` naming the file and the key (or line and column).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, TypeVar

from autocue.casing import camel_keys, snake_keys, to_camel, to_snake
from autocue.dicts import deep_merge
from autocue.llm.stream import THINKING_LEVELS
from autocue.session.errors import SettingsError as SettingsError
from autocue.session.session_dir import autocue_dir

ChildMode = Literal["in-process", "process"]

_KEYS = {
    "compaction", "retry", "defaultThinkingLevel", "steeringMode", "followUpMode", "toolExecution",
    "extensions", "skills", "prompts", "enableSkillCommands",
}
_OWNED_ELSEWHERE = frozenset({"task", "ttsrRules"})
"""Known keys kept in ``extra`` for the feature that reads them (``task``: ``SubagentConfig``;
``ttsrRules``: ``ttsr.py``), checked here so a bad value names its file."""


@dataclass(slots=True)
class CompactionSettings:
    """``compaction`` settings: trigger when tokens > window − ``reserve_tokens``; keep about
    ``keep_recent_tokens`` of recent history verbatim."""

    enabled: bool = True
    reserve_tokens: int = 16384
    keep_recent_tokens: int = 20000


@dataclass(slots=True)
class RetrySettings:
    """``retry`` settings (pi defaults: enabled, 3 retries, 2 s base, 60 s max)."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60000


_SECTIONS = {"compaction": CompactionSettings, "retry": RetrySettings}
_CHOICES = {
    "steeringMode": ("one-at-a-time", "all"), "followUpMode": ("one-at-a-time", "all"),
    "toolExecution": ("parallel", "sequential"),
}
"""The keys that name one of a few modes, the default first."""


def _normalize(d: dict[str, Any]) -> dict[str, Any]:
    """camelCase the keys autocue knows (and the known keys inside ``compaction`` / ``retry``).

    Any other key is kept exactly as written, value and all: it belongs to an extension.
    """
    out = camel_keys(d, _KEYS)
    for key, cls in _SECTIONS.items():
        if isinstance(out.get(key), dict):
            out[key] = camel_keys(out[key], [to_camel(f.name) for f in fields(cls)])
    return out


def _bool(section: dict[str, Any], key: str, default: bool, where: str, source: str) -> bool:
    v = section.get(key, default)
    if not isinstance(v, bool):
        raise SettingsError(f"{source}: {where}{key} must be true or false, got {json.dumps(v)}")
    return v


def _count(section: dict[str, Any], key: str, default: int, where: str, source: str) -> int:
    v = section.get(key, default)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise SettingsError(f"{source}: {where}{key} must be a whole number >= 0, got {json.dumps(v)}")
    return v


_S = TypeVar("_S", CompactionSettings, RetrySettings)


def _settings_section(d: dict[str, Any], key: str, cls: type[_S], source: str) -> _S:
    """The ``compaction`` or ``retry`` section: each field of ``cls`` (a flag or a count) under its camelCase key."""
    section = _section(d, key, source)
    values: dict[str, Any] = {}
    for f in fields(cls):
        read: Callable[..., bool | int] = _bool if isinstance(f.default, bool) else _count
        values[f.name] = read(section, to_camel(f.name), f.default, f"{key}.", source)
    return cls(**values)


def _section(d: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise SettingsError(f"{source}: {key} must be an object, got {json.dumps(v)}")
    return v


def _strings(d: dict[str, Any], key: str, source: str) -> list[str]:
    v = d.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise SettingsError(f"{source}: {key} must be a list of strings, got {json.dumps(v)}")
    return list(v)


@dataclass(slots=True)
class Settings:
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    retry: RetrySettings = field(default_factory=RetrySettings)
    default_thinking_level: str | None = None
    steering_mode: str = "one-at-a-time"
    follow_up_mode: str = "one-at-a-time"
    tool_execution: str = "parallel"
    extensions: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    enable_skill_commands: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    @staticmethod
    def from_dict(data: dict[str, Any], *, source: str = "<dict>") -> Settings:
        """Settings from a dict (camelCase or snake_case keys)."""
        d = _normalize(data)
        s = Settings()
        s.compaction = _settings_section(d, "compaction", CompactionSettings, source)
        s.retry = _settings_section(d, "retry", RetrySettings, source)
        level = d.get("defaultThinkingLevel")
        if level is not None and level not in THINKING_LEVELS:
            raise SettingsError(
                f"{source}: defaultThinkingLevel must be one of {', '.join(THINKING_LEVELS)}, got {json.dumps(level)}"
            )
        s.default_thinking_level = level
        s.extensions = _strings(d, "extensions", source)
        s.skills = _strings(d, "skills", source)
        s.prompts = _strings(d, "prompts", source)
        s.enable_skill_commands = _bool(d, "enableSkillCommands", True, "", source)
        for k, v in d.items():
            if k in _OWNED_ELSEWHERE:
                _check_owned(k, v, source)
                s.extra[k] = v
            elif k not in _KEYS:
                s.extra[k] = v
                s.warnings.append(f"{source}: unknown settings key {k!r} (kept in Settings.extra)")
        for name, allowed in _CHOICES.items():
            val = d.get(name, allowed[0])
            if val not in allowed:
                raise SettingsError(f"{source}: {name} must be one of {', '.join(allowed)}, got {val!r}")
            setattr(s, to_snake(name), val)
        return s

    @staticmethod
    def load(cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None) -> Settings:
        """User settings, then project settings (see the module docstring)."""
        user = autocue_dir(agent_dir)
        merged: dict[str, Any] = {}
        sources: list[str] = []
        for path in (user / "settings.json", Path(cwd) / ".autocue" / "settings.json"):
            data = read_settings_file(path)
            if data is not None:
                Settings.from_dict(data, source=str(path))  # a bad value is reported with its own file
                merged = deep_merge(merged, _normalize(data))
                sources.append(str(path))
        s = Settings.from_dict(merged, source=" + ".join(sources) or "<defaults>")
        s.sources = sources
        return s


@dataclass(slots=True)
class SubagentConfig:
    """How children run (from the ``task`` settings section)."""

    mode: ChildMode = "in-process"
    max_concurrency: int = 4
    command: list[str] = field(default_factory=lambda: [sys.executable, "-m", "autocue"])

    @staticmethod
    def from_settings(s: Settings) -> SubagentConfig:
        return SubagentConfig.parse(s.extra.get("task"), ", ".join(s.sources) or "settings")

    @staticmethod
    def parse(raw: Any, where: str) -> SubagentConfig:
        """The ``task`` settings section; raises ``SettingsError`` naming ``where`` and the key."""
        if raw is None:
            return SubagentConfig()
        if not isinstance(raw, dict):
            raise SettingsError(f"{where}: task must be an object, got {json.dumps(raw)}")
        raw = snake_keys(raw, ("max_concurrency",))
        unknown = set(raw) - {"mode", "max_concurrency", "command"}
        if unknown:
            raise SettingsError(f"{where}: task: unknown key(s) {sorted(unknown)}; use mode, maxConcurrency, command")
        mode = raw.get("mode", "in-process")
        if mode not in ("in-process", "process"):
            raise SettingsError(f"{where}: task.mode must be 'in-process' or 'process', got {json.dumps(mode)}")
        n = raw.get("max_concurrency", 4)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise SettingsError(f"{where}: task.maxConcurrency must be a whole number >= 1, got {json.dumps(n)}")
        c = SubagentConfig(mode, n)
        cmd = raw.get("command")
        if cmd is not None:
            if not isinstance(cmd, list) or not cmd or not all(isinstance(a, str) for a in cmd):
                raise SettingsError(f"{where}: task.command must be a non-empty list of strings, got {json.dumps(cmd)}")
            c.command = list(cmd)
        return c


def _check_owned(key: str, value: Any, source: str) -> None:
    """Check ``task`` and ``ttsrRules`` where they are read from (errors name this source)."""
    if key == "task":
        SubagentConfig.parse(value, source)
    else:
        from autocue.session.ttsr import rules_from_settings

        rules_from_settings(value, source)


def read_settings_file(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, ``None`` when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise SettingsError(
            f"{path}: {path.parent} is a file, not a directory; point AUTOCUE_DIR at a directory"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsError(f"{path}: cannot read the settings file ({getattr(e, 'strerror', None) or e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SettingsError(
            f"{path}:{e.lineno}:{e.colno}: invalid JSON in settings file ({e.msg}); fix or remove the file"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: a settings file must hold a JSON object, got {type(data).__name__}")
    return data


__all__ = [
    "ChildMode", "CompactionSettings", "RetrySettings", "Settings", "SettingsError", "SubagentConfig",
    "read_settings_file",
]
