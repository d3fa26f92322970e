"""User-defined launch profiles: a TOML or YAML file of ``[agents.NAME]`` tables with the fields
of ``AgentProfile`` (lists for argument lists, tables for ``apis``, ``env`` and ``files``).

```toml
[agents.mycli]
binary = "mycli"
print_args = ["--prompt", "{prompt}"]
env = {MYCLI_BASE_URL = "{openai_base_url}", MYCLI_KEY = "{api_key}"}
tool_profile = "pi"
```
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

from autocue.catalog.launch import AgentProfile
from autocue.runner.errors import AgentProfileError as AgentProfileError

_TUPLES = {"print_args", "tui_args", "dirs", "verified", "version_args", "side_requests"}
_DICTS = {"env", "files"}
_FIELDS = {f.name for f in dataclasses.fields(AgentProfile)} - {"name", "source"}


def load_profiles(path: Path) -> dict[str, AgentProfile]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise AgentProfileError(f"{path}: cannot read the agent profiles file: {e.strerror or e}") from None
    data: Any
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise AgentProfileError(f"{path}: {e}") from None
    else:
        from autocue.yamlpos import YamlError, parse_document

        try:
            doc = parse_document(text, str(path))
        except YamlError as e:
            raise AgentProfileError(str(e)) from None
        data = doc.v if doc is not None else None
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict) or not agents:
        raise AgentProfileError(f"{path}: expected an `agents` table of profiles, e.g. [agents.mycli] with "
                                "binary = ... and print_args = [...]")
    return {str(name): _profile(path, str(name), spec) for name, spec in agents.items()}


def _profile(path: Path, name: str, spec: Any) -> AgentProfile:
    where = f"{path}: agents.{name}"
    if not isinstance(spec, dict):
        raise AgentProfileError(f"{where}: expected a table of profile fields")
    unknown = sorted(set(spec) - _FIELDS)
    if unknown:
        raise AgentProfileError(f"{where}.{unknown[0]}: unknown field (known: {', '.join(sorted(_FIELDS))})")
    for req in ("binary", "print_args"):
        if req not in spec:
            raise AgentProfileError(f"{where}: missing `{req}`")
    kw: dict[str, Any] = {}
    for key, value in spec.items():
        if key in _TUPLES:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise AgentProfileError(f"{where}.{key}: expected a list of strings")
            kw[key] = tuple(value)
        elif key in _DICTS:
            if not isinstance(value, dict):
                raise AgentProfileError(f"{where}.{key}: expected a table of strings")
            kw[key] = {str(k): str(v) for k, v in value.items()}
        elif key == "apis":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise AgentProfileError(f"{where}.apis: expected a table per API style, e.g. apis.openai = {{}}")
            kw[key] = {str(k): {str(a): str(b) for a, b in v.items()} for k, v in value.items()}
        elif key == "in_sandbox":
            if not isinstance(value, list) or not all(isinstance(v, list) and len(v) == 2
                                                      and all(isinstance(x, str) for x in v) for v in value):
                raise AgentProfileError(f"{where}.in_sandbox: expected a list of [old, new] argument pairs")
            kw[key] = tuple((v[0], v[1]) for v in value)
        elif key in ("settle", "key_gap"):
            if not isinstance(value, (int, float)):
                raise AgentProfileError(f"{where}.{key}: expected seconds (a number)")
            kw[key] = float(value)
        else:
            if value is not None and not isinstance(value, str):
                raise AgentProfileError(f"{where}.{key}: expected a string")
            kw[key] = value
    return AgentProfile(name=name, source=str(path), **kw)
