"""``autocue scenario run`` with the scenario's own tool: ``--mock-tool NAME=RESULT``, ``-e FILE``, and an
``UnknownToolError`` that names those flags (not Python's ``mock_tools=``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.cli.scenario import main

WEATHER = """\
name: weather
initialPrompt: "What's the weather in Paris?"
timeline:
  - llmResponse:
      - agentToolUse:
          toolName: get_weather
          args: {city: Paris}
          result: "sunny, 21 C"
          status: ok
  - llmResponse:
      - assistant: [[0, "It is sunny in Paris."]]
  - assert:
      text: {contains: ["sunny, 21 C"]}
"""

EXTENSION = '''\
def extension(api):
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny, 21 C in {city}"

    api.register_tool(get_weather)
'''


@pytest.fixture
def weather(tmp_path: Path) -> Path:
    (tmp_path / "weather.yaml").write_text(WEATHER)
    return tmp_path / "weather.yaml"


def test_an_unknown_tool_names_the_flags_of_the_command(weather: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(weather)]) == 1
    out = capsys.readouterr().out
    assert "FAIL weather: UnknownToolError" in out
    assert "Mock it with --mock-tool get_weather=RESULT, or load the extension that registers it with -e FILE" in out
    assert "mock_tools" not in out


def test_mock_tool_answers_the_call(weather: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (weather.parent / "shell.yaml").write_text("""\
name: shell
initialPrompt: "Deploy"
timeline:
  - llmResponse:
      - runCmd: {cmd: "no-such-deploy-tool --prod"}
  - llmResponse:
      - assistant: [[0, "Deployed."]]
  - assert:
      text: {contains: ["deployed 3 services"]}
""")
    assert main(["run", str(weather), str(weather.parent / "shell.yaml"), "--mock-tool", "get_weather=sunny, 21 C",
                 "--mock-tool", "runCmd=deployed 3 services"]) == 0  # the scenario's name runCmd is autocue's bash
    out = capsys.readouterr().out
    assert "PASS weather: 2 replies played, 1 tool call (get_weather), 1 assert step (1 check) passed" in out
    assert "PASS shell: 2 replies played, 1 tool call (bash), 1 assert step (1 check) passed" in out


def test_an_extension_file_registers_the_tool(weather: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "weather_ext.py").write_text(EXTENSION)
    assert main(["run", str(weather), "-e", str(tmp_path / "weather_ext.py"), "-v"]) == 0
    out = capsys.readouterr().out
    assert "PASS weather" in out and "✓ get_weather → sunny, 21 C in Paris" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--mock-tool", "get_weather"], "--mock-tool 'get_weather': expected NAME=RESULT, e.g. --mock-tool "),
    (["--mock-tool", "=x"], "--mock-tool '=x': expected NAME=RESULT"),
    (["-e", "no_such_ext.py"], "-e no_such_ext.py: no such extension file"),
    (["--profile", "nope"], "--profile: unknown tool profile 'nope'"),
])
def test_bad_flags_are_one_line(weather: Path, args: list[str], message: str,
                                capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(weather.parent)
    assert main(["run", str(weather), *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"autocue scenario run: {message}")
    assert len(captured.err.splitlines()) == 1


def test_a_failing_scenario_prints_its_transcript_without_v(weather: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    weather.write_text(WEATHER.replace('contains: ["sunny, 21 C"]', 'contains: ["rainy"]'))
    assert main(["run", str(weather), "--mock-tool", "get_weather=sunny, 21 C"]) == 1
    out = capsys.readouterr().out
    assert "FAIL weather: ScenarioAssertionError" in out
    transcript = out.split("  transcript:\n", 1)[1]
    assert "user: What's the weather in Paris?" in transcript
    assert "get_weather" in transcript and "It is sunny in Paris." in transcript
