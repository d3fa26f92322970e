"""``autocue.loop.yml``: the loop's configuration.

Public surface: ``LoopConfig``, ``EventLoopSettings``, ``HatConfig``, ``BackendSpec``,
``load_config(path)``, ``config_from_dict(data, source=...)``, ``LoopConfigError``.

Shape (every key optional)::

    event_loop:
      prompt: "..."                 # or prompt_file: PROMPT.md (default)
      completion_promise: LOOP_COMPLETE
      max_iterations: 100
      max_runtime_seconds: 14400
      max_consecutive_failures: 5
      starting_event: task.start
      required_events: []
    backend:                        # the default backend of every hat (default: mock)
      type: mock                    # mock | command | agent
      responses: [{output: "...", hat: h, trigger_pattern: re, exit_code: 0, delay_ms: 0}]
      # command: {command: prog, args: [...], prompt_mode: stdin|arg, env: {...}}
      # agent:   {factory: "module:callable", system_prompt: "..."}
    hats:
      <id>: {name, description, triggers: [globs], publishes: [topics], instructions,
             default_publishes, backend, max_activations}

Ralph's files load too: a ``cli: {backend, command, args, prompt_mode}`` section becomes the
default backend; the stale ``subscribes_to`` key is read as ``triggers``; sections autocue
does not implement (``core``, ``backpressure``, ``skills``, ...) are reported in
``LoopConfig.warnings``, never a crash. Every error names the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.loop.errors import LoopConfigError as LoopConfigError
from autocue.yamlpos import Positions, YamlError, parse_document

_TOP_KEYS = {"event_loop", "hats", "backend", "cli"}
_LOOP_KEYS = {
    "prompt", "prompt_file", "completion_promise", "max_iterations", "max_runtime_seconds",
    "max_consecutive_failures", "starting_event", "required_events",
}
_HAT_KEYS = {
    "name", "description", "triggers", "publishes", "instructions", "default_publishes", "backend",
    "max_activations", "subscribes_to", "extra_instructions",
}
BACKEND_TYPES = ("mock", "command", "agent")

# Named command backends (the agent CLIs ralph drives). The prompt goes as the last argument.
COMMAND_PRESETS: dict[str, dict[str, Any]] = {
    "claude": {"command": "claude", "args": ["-p", "--dangerously-skip-permissions"], "prompt_mode": "arg"},
    "gemini": {"command": "gemini", "args": ["--yolo", "-p"], "prompt_mode": "arg"},
    "kiro": {"command": "kiro-cli", "args": ["chat", "--no-interactive", "--trust-all-tools"], "prompt_mode": "arg"},
    "codex": {"command": "codex", "args": ["exec", "--full-auto"], "prompt_mode": "arg"},
    "pi": {"command": "pi", "args": ["-p"], "prompt_mode": "arg"},
}


@dataclass(slots=True)
class BackendSpec:
    """Which backend runs a hat: ``type`` plus that backend's options."""

    type: str = "mock"
    options: dict[str, Any] = field(default_factory=dict)
    where: str = "<default>"


@dataclass(slots=True)
class HatConfig:
    id: str
    name: str = ""
    description: str = ""
    triggers: list[str] = field(default_factory=list)
    publishes: list[str] = field(default_factory=list)
    instructions: str = ""
    default_publishes: str | None = None
    backend: BackendSpec | None = None
    max_activations: int | None = None


@dataclass(slots=True)
class EventLoopSettings:
    prompt: str | None = None
    prompt_file: str | None = None
    completion_promise: str = "LOOP_COMPLETE"
    max_iterations: int = 100
    max_runtime_seconds: float = 14400
    max_consecutive_failures: int = 5
    starting_event: str = "task.start"
    required_events: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LoopConfig:
    event_loop: EventLoopSettings = field(default_factory=EventLoopSettings)
    hats: dict[str, HatConfig] = field(default_factory=dict)
    backend: BackendSpec = field(default_factory=BackendSpec)
    source: str = "<config>"
    base_dir: Path = field(default_factory=Path.cwd)
    warnings: list[str] = field(default_factory=list)


class _Reader:
    def __init__(self, source: str, positions: Positions | None) -> None:
        self.source = source
        self.positions = positions
        self.warnings: list[str] = []

    def where(self, node: Any, key: Any) -> str:
        """``file:line:col`` of ``key`` in ``node`` when the config came from a file, else the source."""
        pos = self.positions.key_pos(node, key) if self.positions is not None else None
        return str(pos) if pos is not None else self.source

    def fail(self, node: Any, key: Any, msg: str) -> LoopConfigError:
        return LoopConfigError(f"{self.where(node, key)}: {msg}")

    def str_(self, node: Any, key: str, default: str | None = None) -> str | None:
        if key not in node or node[key] is None:
            return default
        v = node[key]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(v)
        if not isinstance(v, str):
            raise self.fail(node, key, f"'{key}' must be a string, got {type(v).__name__}")
        return v

    def num(self, node: Any, key: str, default: float | None, *, integer: bool, minimum: float) -> Any:
        if key not in node or node[key] is None:
            return default
        v = node[key]
        ok = isinstance(v, int) if integer else isinstance(v, (int, float))
        if isinstance(v, bool) or not ok:
            kind = "an integer" if integer else "a number"
            raise self.fail(node, key, f"'{key}' must be {kind}, got {v!r}")
        if v < minimum:
            raise self.fail(node, key, f"'{key}' must be at least {minimum}, got {v!r}")
        return v

    def str_list(self, node: Any, key: str) -> list[str]:
        if key not in node or node[key] is None:
            return []
        v = node[key]
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.fail(node, key, f"'{key}' must be a list of strings, got {v!r}")
        return list(v)

    def unknown(self, node: Any, allowed: set[str], what: str) -> None:
        for k in node:
            if k not in allowed:
                self.warnings.append(f"{self.where(node, k)}: unknown key '{k}' in {what} (ignored)")


def _backend(r: _Reader, node: Any, key: Any) -> BackendSpec:
    v = node[key]
    where = r.where(node, key)
    if isinstance(v, str):
        if v in BACKEND_TYPES:
            return BackendSpec(v, {}, where)
        if v in COMMAND_PRESETS:
            return BackendSpec("command", dict(COMMAND_PRESETS[v]), where)
        known = ", ".join([*BACKEND_TYPES, *COMMAND_PRESETS])
        raise r.fail(node, key, f"unknown backend {v!r}; use one of {known}, or {{command: prog, args: [...]}}")
    if not isinstance(v, dict):
        raise r.fail(node, key, f"'backend' must be a name or a mapping, got {type(v).__name__}")
    opts = {str(k): val for k, val in v.items()}
    kind = opts.pop("type", None)
    if kind is None:
        kind = "command" if "command" in opts else "mock"
    if kind in COMMAND_PRESETS:
        opts = {**COMMAND_PRESETS[kind], **opts}
        kind = "command"
    if kind not in BACKEND_TYPES:
        raise r.fail(node, key, f"unknown backend type {kind!r}; use one of {', '.join(BACKEND_TYPES)}")
    if kind == "command":
        if not isinstance(opts.get("command"), str) or not opts["command"]:
            raise r.fail(node, key, "a command backend needs 'command: <program>'")
        mode = opts.get("prompt_mode", "stdin")
        if mode not in ("stdin", "arg"):
            raise r.fail(node, key, f"prompt_mode must be 'stdin' or 'arg', got {mode!r}")
    return BackendSpec(str(kind), opts, where)


def _cli_backend(r: _Reader, node: Any) -> BackendSpec:
    cli = node["cli"]
    if not isinstance(cli, dict):
        raise r.fail(node, "cli", "'cli' must be a mapping")
    name = cli.get("backend")
    opts: dict[str, Any] = {}
    if isinstance(name, str) and name in COMMAND_PRESETS:
        opts.update(COMMAND_PRESETS[name])
    elif isinstance(name, str) and name in BACKEND_TYPES and "command" not in cli:
        return BackendSpec(name, {}, r.where(node, "cli"))
    for k in ("command", "args", "prompt_mode"):
        if cli.get(k) is not None:
            opts[k] = cli[k]
    if "command" not in opts:
        raise r.fail(node, "cli", f"cli.backend {name!r} is not known and no cli.command is given")
    return BackendSpec("command", opts, r.where(node, "cli"))


def _hat(r: _Reader, hats: Any, hat_id: str) -> HatConfig:
    node = hats[hat_id]
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise r.fail(hats, hat_id, f"hat '{hat_id}' must be a mapping")
    r.unknown(node, _HAT_KEYS, f"hat '{hat_id}'")
    triggers = r.str_list(node, "triggers")
    if "subscribes_to" in node:
        where = r.where(node, "subscribes_to")
        r.warnings.append(f"{where}: 'subscribes_to' is the old name of 'triggers'; read as triggers")
        triggers = [*triggers, *r.str_list(node, "subscribes_to")]
    instructions = r.str_(node, "instructions", "") or ""
    extra = r.str_list(node, "extra_instructions")
    if extra:
        instructions = "\n\n".join([instructions, *extra]).strip()
    max_act = r.num(node, "max_activations", None, integer=True, minimum=1)
    return HatConfig(
        id=hat_id,
        name=r.str_(node, "name", hat_id) or hat_id,
        description=r.str_(node, "description", "") or "",
        triggers=triggers,
        publishes=r.str_list(node, "publishes"),
        instructions=instructions,
        default_publishes=r.str_(node, "default_publishes"),
        backend=_backend(r, node, "backend") if node.get("backend") is not None else None,
        max_activations=max_act,
    )


def config_from_dict(
    data: Any, *, source: str = "<config>", base_dir: Path | None = None, positions: Positions | None = None
) -> LoopConfig:
    """Build a ``LoopConfig`` from parsed YAML/JSON; with ``positions`` (``autocue.yamlpos``)
    problems name ``file:line:col``."""
    r = _Reader(source, positions)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise LoopConfigError(f"{source}: the loop config must be a mapping, got {type(data).__name__}")
    for k in data:
        if k not in _TOP_KEYS:
            r.warnings.append(f"{r.where(data, k)}: section '{k}' is not used by autocue loop (ignored)")
    el = EventLoopSettings()
    loop = data.get("event_loop")
    if loop is not None:
        if not isinstance(loop, dict):
            raise r.fail(data, "event_loop", "'event_loop' must be a mapping")
        for k in loop:
            if k not in _LOOP_KEYS:
                r.warnings.append(f"{r.where(loop, k)}: event_loop.{k} is not used by autocue loop (ignored)")
        el = EventLoopSettings(
            prompt=r.str_(loop, "prompt"),
            prompt_file=r.str_(loop, "prompt_file"),
            completion_promise=r.str_(loop, "completion_promise", "LOOP_COMPLETE") or "LOOP_COMPLETE",
            max_iterations=r.num(loop, "max_iterations", 100, integer=True, minimum=1),
            max_runtime_seconds=r.num(loop, "max_runtime_seconds", 14400, integer=False, minimum=0.001),
            max_consecutive_failures=r.num(loop, "max_consecutive_failures", 5, integer=True, minimum=1),
            starting_event=r.str_(loop, "starting_event", "task.start") or "task.start",
            required_events=r.str_list(loop, "required_events"),
        )
    backend = BackendSpec()
    if data.get("backend") is not None:
        backend = _backend(r, data, "backend")
    elif data.get("cli") is not None:
        backend = _cli_backend(r, data)
    hats: dict[str, HatConfig] = {}
    raw_hats = data.get("hats")
    if raw_hats is not None:
        if not isinstance(raw_hats, dict):
            raise r.fail(data, "hats", "'hats' must be a mapping of hat id to hat")
        for hat_id in raw_hats:
            hats[str(hat_id)] = _hat(r, raw_hats, str(hat_id))
    for h in hats.values():
        if not h.triggers:
            r.warnings.append(f"{source}: hat '{h.id}' has no triggers; it only runs on events targeted at it")
    return LoopConfig(el, hats, backend, source, base_dir or Path.cwd(), r.warnings)


def load_config(path: str | Path) -> LoopConfig:
    """Read an ``autocue.loop.yml`` (or a ralph ``ralph.yml``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise LoopConfigError(f"{p}: cannot read the loop config ({e.strerror or e})") from e
    try:
        doc = parse_document(text, str(p))
    except YamlError as e:
        raise LoopConfigError(str(e)) from None
    return config_from_dict(doc.v if doc is not None else None, source=str(p), base_dir=p.resolve().parent,
                            positions=doc.positions if doc is not None else None)


__all__ = [
    "BACKEND_TYPES", "COMMAND_PRESETS", "BackendSpec", "EventLoopSettings", "HatConfig", "LoopConfig",
    "LoopConfigError", "config_from_dict", "load_config",
]
