"""Misspelt event names and top-level keys are errors ("did you mean"); a timeline with no reply says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.cli.scenario import main
from autocue.scenario import ScenarioError, load_scenario_text

TYPO = """name: typo
timeline:
  - userInputs: [[0, hi]]
  - llmRespons:
      - assistant: [[0, hello]]
"""


def load_error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, "s.yaml")
    return info.value


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (TYPO, "s.yaml:4:5: timeline[1].llmRespons",
         "unknown timeline event 'llmRespons': did you mean `llmResponse`?"),
        ("name: t\ntimeline:\n  - LLMResponse: []\n", "s.yaml:3:5: timeline[0].LLMResponse",
         "unknown timeline event 'LLMResponse': did you mean `llmResponse`?"),
        ("name: t\ntimeline:\n  - {_meta: {}, advanceMS: 5}\n", "s.yaml:3:17: timeline[0].advanceMS",
         "unknown timeline event 'advanceMS': did you mean `advanceMs`?"),
        ("name: t\ntimeline:\n  - userInput: [[0, hi]]\n", "s.yaml:3:5: timeline[0].userInput",
         "unknown timeline event 'userInput': did you mean `userInputs`?"),
        ("name: t\ntimeline:\n  - {type: llmRespons}\n", "s.yaml:3:12: timeline[0].type",
         "unknown event type 'llmRespons': did you mean `llmResponse`?"),
        ("name: t\ntimline:\n  - advanceMs: 5\n", "s.yaml:2:1: timline",
         "unknown top-level key 'timline': did you mean `timeline`?"),
        ("name: t\ninitalPrompt: hi\ntimeline: []\n", "s.yaml:2:1: initalPrompt",
         "unknown top-level key 'initalPrompt': did you mean `initialPrompt`?"),
        ("Name: t\ntimeline: []\n", "s.yaml:1:1: Name", "unknown top-level key 'Name': did you mean `name`?"),
    ],
    ids=["llmRespons", "case", "beside-meta", "userInput", "type-tagged", "timline", "initalPrompt", "Name"],
)
def test_near_misses_are_errors_that_name_the_known_spelling(text: str, where: str, message: str) -> None:
    e = load_error(text)
    assert str(e) == f"{where}: {message}"


def test_unknown_names_that_are_not_near_misses_stay_warnings() -> None:
    sc = load_scenario_text("name: t\ncolour: blue\ntimeline:\n  - fancyEvent: 1\n  - assistant: [[0, hi]]\n", "s.yaml")
    assert [str(w) for w in sc.warnings] == [
        "s.yaml:2:1: colour: unknown key 'colour' in the scenario is ignored",
        "s.yaml:4:5: timeline[0].fancyEvent: unknown timeline event 'fancyEvent' is ignored (known events: "
        "llmResponse, userInputs, assert, advanceMs, screenshot, runCmd, ...)",
    ]
    assert sc.compile().step_count == 1


def test_check_fails_on_a_misspelt_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "typo.yaml"
    f.write_text(TYPO)
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {f}:4:5: timeline[1].llmRespons: unknown timeline event 'llmRespons': did you mean `llmResponse`?",
        "1 file(s) checked, 1 failed",
    ]


NO_REPLY = "name: quiet\ntimeline:\n  - userInputs: [[0, hi]]\n  - advanceMs: 5\n"


def test_a_timeline_without_llm_response_says_it_scripts_no_reply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "quiet.yaml"
    f.write_text(NO_REPLY)
    assert main(["check", str(f)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"warning: {f}:2:1: timeline: the timeline has no llmResponse (nor a think, assistant, tool or error event): "
        "the scenario scripts 0 model replies",
        f"ok: {f}: quiet (0 scripted replies, 1 warning(s))",
        "1 file(s) checked, 0 failed",
    ]
    assert main(["check", "--strict", str(f)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: {f}: quiet: 1 warning(s), which --strict counts as errors", "1 file(s) checked, 1 failed"]


def test_strict_passes_a_clean_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "clean.yaml"
    f.write_text("name: clean\ntimeline:\n  - llmResponse:\n      - assistant: [[0, hi]]\n")
    assert main(["check", "--strict", str(f)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"ok: {f}: clean (1 scripted replies, 0 warning(s))",
                                                    "1 file(s) checked, 0 failed"]
