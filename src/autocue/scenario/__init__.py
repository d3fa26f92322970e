"""YAML scenarios: one loader for every accepted form, compiled onto the shared ``Script`` model.

Public surface:

- ``load_scenario(path) -> Scenario`` (exactly one document), ``load_scenario_text(text,
  filename="<string>")``, ``load_scenarios(path_or_dir) -> list[Scenario]`` (every ``*.yaml`` /
  ``*.yml`` of a directory, sorted; every document of a multi-document file).
- ``Scenario``: ``.name``, ``.warnings`` (``ScenarioWarning``, ``str()`` is ``file:line:col: ...``),
  ``.timeline`` (typed events), ``.compile() -> Script``.
- ``ScenarioError`` (``file:line:col: path: message``), ``scenario_json_schema()``.
- Tool profiles: ``ToolProfile``, ``ToolMapping``, ``get_profile``, ``detect_profile``,
  ``apply_profile``, ``PROFILE_NAMES``.
- Assertions: ``AssertSpec`` (the ``Check.spec`` of compiled ``assert`` steps),
  ``evaluate_assert(spec, root, text=...) -> AssertReport``.
"""

from __future__ import annotations

from pathlib import Path

from autocue.scenario.assertions import (
    AssertReport,
    AssertResult,
    AssertSpec,
    GitCommitCheck,
    JsonFileCheck,
    evaluate_assert,
)
from autocue.scenario.compile import compile_scenario, scripted_error
from autocue.scenario.errors import Pos, ScenarioError, ScenarioWarning
from autocue.scenario.limits import MAX_DOCUMENT_BYTES
from autocue.scenario.loader import ScenarioLoader
from autocue.scenario.model import (
    AdvanceMs,
    AgentEdits,
    AgentPlan,
    AssertStep,
    AssistantPart,
    CommandSpec,
    Complete,
    ErrorStep,
    Expect,
    LlmResponse,
    Merge,
    Repo,
    RunnerEvent,
    Scenario,
    Screenshot,
    ServerSpec,
    ThinkPart,
    TimedText,
    TimelineEvent,
    ToolExecution,
    ToolResultPart,
    ToolUse,
    UserCommand,
    UserEdits,
    UserInput,
    UserInputs,
)
from autocue.scenario.profiles import (
    PROFILE_NAMES,
    ToolMapping,
    ToolProfile,
    apply_profile,
    detect_profile,
    get_profile,
    map_tool_call,
)
from autocue.scenario.schema import scenario_json_schema
from autocue.scenario.yamlsrc import too_big

SCENARIO_SUFFIXES = (".yaml", ".yml")


def load_scenario_texts(text: str, filename: str = "<string>") -> list[Scenario]:
    """Every scenario document in ``text``."""
    return ScenarioLoader(filename).load(text)


def load_scenario_text(text: str, filename: str = "<string>") -> Scenario:
    """The single scenario in ``text``; ``filename`` is used in positions."""
    docs = load_scenario_texts(text, filename)
    if len(docs) != 1:
        raise ScenarioError(
            f"expected one scenario, found {len(docs)} YAML documents: use load_scenarios() for several",
            docs[1].pos,
        )
    return docs[0]


def read_scenario_file(path: Path) -> str:
    """The text of a scenario file, read no further than ``MAX_DOCUMENT_BYTES`` (``ScenarioError`` past it)."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise ScenarioError(too_big(max(len(data), path.stat().st_size)), Pos(str(path), 1, 1))
        return data.decode("utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such scenario file", Pos(str(path), 1, 1)) from None
    except UnicodeDecodeError as e:
        raise ScenarioError(f"a scenario file must be UTF-8 text ({e.reason} at byte {e.start})",
                            Pos(str(path), 1, 1)) from None
    except IsADirectoryError:
        raise ScenarioError("is a directory: use load_scenarios() for a directory", Pos(str(path), 1, 1)) from None


def load_scenario(path: str | Path) -> Scenario:
    """Load the one scenario in the file at ``path``."""
    p = Path(path)
    return load_scenario_text(read_scenario_file(p), str(p))


def scenario_files(path_or_dir: str | Path) -> list[Path]:
    """The scenario files a path names: itself, or the sorted ``*.yaml``/``*.yml`` of a directory."""
    p = Path(path_or_dir)
    if p.is_dir():
        return sorted(f for f in p.iterdir() if f.suffix in SCENARIO_SUFFIXES and f.is_file())
    return [p]


def load_scenarios(path_or_dir: str | Path) -> list[Scenario]:
    """Every scenario in a file (all its YAML documents) or in a directory's ``*.yaml`` / ``*.yml`` files."""
    out: list[Scenario] = []
    for f in scenario_files(path_or_dir):
        out.extend(load_scenario_texts(read_scenario_file(f), str(f)))
    return out


__all__ = [
    "PROFILE_NAMES", "SCENARIO_SUFFIXES", "AdvanceMs", "AgentEdits", "AgentPlan", "AssertReport", "AssertResult",
    "AssertSpec", "AssertStep", "AssistantPart", "CommandSpec", "Complete", "ErrorStep", "Expect", "GitCommitCheck",
    "JsonFileCheck", "LlmResponse", "Merge", "Pos", "Repo", "RunnerEvent", "Scenario", "ScenarioError",
    "ScenarioLoader", "ScenarioWarning", "Screenshot", "ServerSpec", "ThinkPart", "TimedText", "TimelineEvent",
    "ToolExecution", "ToolMapping", "ToolProfile", "ToolResultPart", "ToolUse", "UserCommand", "UserEdits",
    "UserInput", "UserInputs", "apply_profile", "compile_scenario", "detect_profile", "evaluate_assert",
    "get_profile", "load_scenario", "load_scenario_text", "load_scenario_texts", "load_scenarios",
    "map_tool_call", "read_scenario_file", "scenario_files", "scenario_json_schema", "scripted_error",
]
