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

Names load on first use (``autocue.lazy``): importing one submodule (the mock server's
``autocue.scenario.expect``) or reading a scenario does not import the profiles, the JSON
Schema or the assertion checks.
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.scenario.assertions import (
        AssertReport,
        AssertResult,
        AssertSpec,
        GitCommitCheck,
        JsonFileCheck,
        evaluate_assert,
    )
    from autocue.scenario.compile import compile_scenario, scripted_error
    from autocue.scenario.errors import Pos, ScenarioError, ScenarioWarning, TimelineKindError
    from autocue.scenario.files import (
        SCENARIO_SUFFIXES,
        load_scenario,
        load_scenario_text,
        load_scenario_texts,
        load_scenarios,
        read_scenario_file,
        scenario_files,
    )
    from autocue.scenario.loader import ScenarioLoader
    from autocue.scenario.model import (
        AdvanceMs,
        AgentEdits,
        AgentPlan,
        AssertStep,
        AssistantPart,
        CallEveryTool,
        CommandSpec,
        Complete,
        ErrorStep,
        Expect,
        ExpectRequestStep,
        LlmResponse,
        Merge,
        Repo,
        RunnerEvent,
        Scenario,
        Screenshot,
        ServerSpec,
        StructuredOutput,
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

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.scenario.assertions": ["AssertReport", "AssertResult", "AssertSpec", "GitCommitCheck", "JsonFileCheck",
                                    "evaluate_assert"],
    "autocue.scenario.compile": ["compile_scenario", "scripted_error"],
    "autocue.scenario.errors": ["Pos", "ScenarioError", "ScenarioWarning", "TimelineKindError"],
    "autocue.scenario.files": ["SCENARIO_SUFFIXES", "load_scenario", "load_scenario_text", "load_scenario_texts",
                               "load_scenarios", "read_scenario_file", "scenario_files"],
    "autocue.scenario.loader": ["ScenarioLoader"],
    "autocue.scenario.model": ["AdvanceMs", "AgentEdits", "AgentPlan", "AssertStep", "AssistantPart",
                               "CallEveryTool", "CommandSpec", "Complete", "ErrorStep", "Expect", "ExpectRequestStep",
                               "LlmResponse", "Merge", "Repo",
                               "RunnerEvent",
                               "Scenario", "Screenshot", "ServerSpec", "StructuredOutput", "ThinkPart", "TimedText",
                               "TimelineEvent",
                               "ToolExecution", "ToolResultPart", "ToolUse", "UserCommand", "UserEdits", "UserInput",
                               "UserInputs"],
    "autocue.scenario.profiles": ["PROFILE_NAMES", "ToolMapping", "ToolProfile", "apply_profile", "detect_profile",
                                  "get_profile", "map_tool_call"],
    "autocue.scenario.schema": ["scenario_json_schema"],
})

__all__ = [
    "PROFILE_NAMES", "SCENARIO_SUFFIXES", "AdvanceMs", "AgentEdits", "AgentPlan", "AssertReport", "AssertResult",
    "AssertSpec", "AssertStep", "AssistantPart", "CallEveryTool", "CommandSpec", "Complete", "ErrorStep", "Expect",
    "ExpectRequestStep",
    "GitCommitCheck",
    "JsonFileCheck", "LlmResponse", "Merge", "Pos", "Repo", "RunnerEvent", "Scenario", "ScenarioError",
    "ScenarioLoader", "ScenarioWarning", "Screenshot", "ServerSpec", "StructuredOutput", "ThinkPart", "TimedText",
    "TimelineEvent",
    "TimelineKindError",
    "ToolExecution", "ToolMapping", "ToolProfile", "ToolResultPart", "ToolUse", "UserCommand", "UserEdits",
    "UserInput", "UserInputs", "apply_profile", "compile_scenario", "detect_profile", "evaluate_assert",
    "get_profile", "load_scenario", "load_scenario_text", "load_scenario_texts", "load_scenarios",
    "map_tool_call", "read_scenario_file", "scenario_files", "scenario_json_schema", "scripted_error",
]
