"""Session settings from JSON: the user's file, then the project's (project wins, key by key).

Files: ``$AUTOCUE_DIR/settings.json`` (default ``~/.autocue/settings.json``), then
``<cwd>/.autocue/settings.json``. Keys may be camelCase (as pi writes them) or snake_case:

====================================  ===========================================  =================
key                                   meaning                                      default
====================================  ===========================================  =================
``compaction.enabled``                auto-compaction on threshold / overflow       ``true``
``compaction.reserveTokens``          compact when tokens > window − reserve        ``16384``
``compaction.keepRecentTokens``       recent tokens kept verbatim                   ``20000``
``retry.enabled``                     auto-retry of retryable provider errors       ``true``
``retry.maxRetries``                  attempts after the first failure              ``3``
``retry.baseDelayMs``                 first delay; doubles each attempt             ``2000``
``retry.maxDelayMs``                  cap (a longer server retry-after gives up)    ``60000``
``defaultThinkingLevel``              off/minimal/low/medium/high/xhigh             ``null``
``steeringMode`` / ``followUpMode``   ``one-at-a-time`` or ``all``                  ``one-at-a-time``
``toolExecution``                     ``parallel`` or ``sequential``                ``parallel``
``extensions``                        extra extension paths / module names          ``[]``
``skills`` / ``prompts``              extra skill / prompt-template paths           ``[]``
``enableSkillCommands``               ``/skill:name`` expansion                     ``true``
====================================  ===========================================  =================

Unknown keys are kept in ``extra`` and listed in ``warnings``; a file that is not valid JSON
raises ``SettingsError`` naming the file, line and column.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.errors import AutocueError
from autocue.session.compaction import CompactionSettings
from autocue.session.retry import RetrySettings

_KEYS = {
    "compaction", "retry", "defaultThinkingLevel", "steeringMode", "followUpMode", "toolExecution",
    "extensions", "skills", "prompts", "enableSkillCommands",
}


class SettingsError(AutocueError, ValueError):
    """A settings file that cannot be read."""


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _normalize(d: Any) -> Any:
    if isinstance(d, dict):
        return {_camel(k) if isinstance(k, str) else k: _normalize(v) for k, v in d.items()}
    return d


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


@dataclass(slots=True)
class Settings:
    compaction: CompactionSettings = field(default_factory=lambda: CompactionSettings(enabled=True))
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
        c = d.get("compaction") or {}
        s.compaction = CompactionSettings(
            enabled=bool(c.get("enabled", True)),
            reserve_tokens=int(c.get("reserveTokens", 16384)),
            keep_recent_tokens=int(c.get("keepRecentTokens", 20000)),
        )
        r = d.get("retry") or {}
        s.retry = RetrySettings(
            enabled=bool(r.get("enabled", True)),
            max_retries=int(r.get("maxRetries", 3)),
            base_delay_ms=int(r.get("baseDelayMs", 2000)),
            max_delay_ms=int(r.get("maxDelayMs", 60000)),
        )
        s.default_thinking_level = d.get("defaultThinkingLevel")
        s.steering_mode = d.get("steeringMode", "one-at-a-time")
        s.follow_up_mode = d.get("followUpMode", "one-at-a-time")
        s.tool_execution = d.get("toolExecution", "parallel")
        s.extensions = [str(x) for x in d.get("extensions") or []]
        s.skills = [str(x) for x in d.get("skills") or []]
        s.prompts = [str(x) for x in d.get("prompts") or []]
        s.enable_skill_commands = bool(d.get("enableSkillCommands", True))
        for k, v in d.items():
            if k not in _KEYS:
                s.extra[k] = v
                s.warnings.append(f"{source}: unknown settings key {k!r} (kept in Settings.extra)")
        for name, val, allowed in (
            ("steeringMode", s.steering_mode, ("one-at-a-time", "all")),
            ("followUpMode", s.follow_up_mode, ("one-at-a-time", "all")),
            ("toolExecution", s.tool_execution, ("parallel", "sequential")),
        ):
            if val not in allowed:
                raise SettingsError(f"{source}: {name} must be one of {', '.join(allowed)}, got {val!r}")
        return s

    @staticmethod
    def load(cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None) -> Settings:
        """User settings, then project settings (see the module docstring)."""
        from autocue.extensions.loader import default_agent_dir

        user = Path(agent_dir) if agent_dir is not None else default_agent_dir()
        merged: dict[str, Any] = {}
        sources: list[str] = []
        for path in (user / "settings.json", Path(cwd) / ".autocue" / "settings.json"):
            data = read_settings_file(path)
            if data is not None:
                merged = _merge(merged, _normalize(data))
                sources.append(str(path))
        s = Settings.from_dict(merged, source=" + ".join(sources) or "<defaults>")
        s.sources = sources
        return s


def read_settings_file(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, ``None`` when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SettingsError(
            f"{path}:{e.lineno}:{e.colno}: invalid JSON in settings file ({e.msg}); fix or remove the file"
        ) from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: a settings file must hold a JSON object, got {type(data).__name__}")
    return data


__all__ = ["RetrySettings", "Settings", "SettingsError", "read_settings_file"]
