"""One agent CLI's catalogue entry, ``AgentCli``: its names, launch profile, tool profiles, the
declared tool names that identify it, and the side calls it makes.

* **Names**: ``launch.name`` is the canonical one (``--agent claude``); ``aliases`` are others
  (``claude-code``), accepted wherever a tool profile is named.
* **Tool profiles** (``tools``): how scenario tool calls become its tool calls; the first is the one
  its launch profile uses (``launch.tool_profile``), others are variants (Claude Code 2.0).
* **Detection** (``detect``): a ``Signature`` per tool profile, over the tool names a request
  declares (``any_of``, ``all_of``, ``at_least``, combined with ``|`` and ``&``), tried in order;
  ``detect_rank`` orders the CLIs when several match (a CLI whose names are a subset of another's,
  like pi's ``read``/``write``/``edit``/``bash`` within opencode's, ranks after it).
* **Side calls** (``side_calls``): requests it makes besides the conversation (a session title, a
  model router), recognised by what the request holds (``RequestView``), never by its API's name,
  and answered without consuming the script.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol

from autocue.catalog.launch import AgentProfile
from autocue.catalog.tools import ToolProfile


@dataclass(frozen=True, slots=True)
class Signature:
    """Declared tool names that identify a tool profile: it matches when, for one of its
    ``alternatives``, each ``(k, names)`` clue finds at least ``k`` of ``names`` declared."""

    alternatives: tuple[tuple[tuple[int, frozenset[str]], ...], ...]

    def matches(self, declared: AbstractSet[str]) -> bool:
        for alt in self.alternatives:
            for k, names in alt:
                if len(declared & names) < k:
                    break
            else:
                return True
        return False

    def __or__(self, other: Signature) -> Signature:
        return Signature(self.alternatives + other.alternatives)

    def __and__(self, other: Signature) -> Signature:
        return Signature(tuple(a + b for a in self.alternatives for b in other.alternatives))


def at_least(k: int, *names: str) -> Signature:
    """At least ``k`` of ``names`` are declared."""
    return Signature((((k, frozenset(names)),),))


def any_of(*names: str) -> Signature:
    return at_least(1, *names)


def all_of(*names: str) -> Signature:
    return at_least(len(names), *names)


@dataclass(frozen=True, slots=True)
class Detect:
    """``profile`` is the CLI's when a request's declared tool names match ``signature``."""

    profile: ToolProfile
    signature: Signature


class RequestView(Protocol):
    """What a side call's predicate may read of a request (the mock server's ``Incoming`` has it)."""

    @property
    def body(self) -> Mapping[str, Any]: ...

    def system_text(self) -> str: ...

    def last_user_text(self) -> str: ...

    def declared_tools(self) -> Sequence[str]: ...


@dataclass(frozen=True, slots=True)
class SideCall:
    """A request the CLI sends besides the conversation: ``matches`` recognises it, ``answer`` gives
    the reply's text from the scenario's name; ``kind`` names it in the session's journal. With
    ``tool_less`` (the default) only a request that declares no tools (its body has no ``tools``: a
    title request, not a turn) is asked, so most requests skip the predicate."""

    kind: str
    matches: Callable[[RequestView], bool]
    answer: Callable[[str], str]
    tool_less: bool = True


def schema_mentions(schema: object, key: str) -> bool:
    """A JSON schema (an object) with a property named ``key``."""
    if isinstance(schema, dict):
        props = schema.get("properties")
        return isinstance(props, dict) and key in props
    return False


def scenario_title(scenario_name: str) -> str:
    """A title made of the scenario's name (``my_scenario`` → ``my scenario``)."""
    return scenario_name.replace("_", " ").replace("-", " ").strip() or "Scripted session"


@dataclass(frozen=True, slots=True)
class AgentCli:
    """Everything autocue knows of one agent CLI (see the module's docstring)."""

    launch: AgentProfile
    aliases: tuple[str, ...] = ()
    tools: tuple[ToolProfile, ...] = ()
    detect: tuple[Detect, ...] = ()
    detect_rank: int = 100
    side_calls: tuple[SideCall, ...] = ()

    def __post_init__(self) -> None:
        main = self.tools[0].name if self.tools else None
        if self.launch.tool_profile != main:
            raise ValueError(f"agent CLI {self.name!r}: its launch profile's tool_profile "
                             f"{self.launch.tool_profile!r} is not its first tool profile ({main!r})")
        unknown = [d.profile.name for d in self.detect if d.profile not in self.tools]
        if unknown:
            raise ValueError(f"agent CLI {self.name!r}: detects tool profile {unknown[0]!r}, not one of its tools")

    @property
    def name(self) -> str:
        return self.launch.name

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)
