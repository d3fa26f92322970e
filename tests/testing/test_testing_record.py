"""In-process recording: ``create_test_session(record=..., provider=..., model=...)`` records a real
provider's replies (autocue's OpenAI Chat provider against an ``autocue serve`` upstream) when the
file is missing, replays them when present, and follows the record modes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autocue.llm.providers.openai_completions import OpenAICompletionsProvider
from autocue.llm.types import AssistantMessage, Model
from autocue.mockllm import MockLLMServer, serve
from autocue.scenario import load_scenario
from autocue.testing import create_test_session, when
from autocue.testing.errors import HarnessError
from autocue.testing.recorded import RecordingMissingError

UPSTREAM = """\
name: upstream
initialPrompt: list the files
timeline:
  - llmResponse:
      - assistant: [[0, "Let me look."]]
      - agentToolUse: {toolName: bash, toolCallId: call_ls, args: {command: ls}}
  - llmResponse:
      - assistant: [[0, "Two files."]]
  - userInputs: [[0, "thanks"]]
  - llmResponse:
      - assistant: [[0, "You are welcome."]]
"""


def _live(server: MockLLMServer) -> dict[str, object]:
    model = Model(id="m1", api="openai-completions", provider="openai", base_url=server.openai_base_url)
    key = "sk-test-secret-0123456789abcdef"
    return {"provider": OpenAICompletionsProvider(api_key_resolver=lambda _p: key), "model": model}


def _texts(t: object) -> list[str]:
    msgs = t.session.messages  # type: ignore[attr-defined]
    return [m.text for m in msgs if isinstance(m, AssistantMessage) and m.text]


def _upstream(tmp_path: Path) -> Path:
    p = tmp_path / "upstream.yaml"
    p.write_text(UPSTREAM)
    return p


def test_records_when_missing_then_replays_without_the_provider(tmp_path: Path) -> None:
    rec = tmp_path / "cassettes" / "ls.yaml"
    with serve(_upstream(tmp_path)) as server:
        with create_test_session(record=rec, mock_tools={"bash": "a.txt b.txt"}, **_live(server)) as t:
            t.run_sync(when("list the files", []))
            assert _texts(t) == ["Let me look.", "Two files."]
            assert t.events.tool_results_for("bash")[0].is_error is False
        assert server.session("sk-test-secret-0123456789abcdef")["consumed"] == 2
    text = rec.read_text()
    assert text.startswith("# recorded by autocue") and 'initialPrompt: "list the files"' in text
    assert "sk-test-secret" not in text
    steps = load_scenario(rec).compile().all_steps()
    assert [s.describe() for s in steps] == ['say("Let me look.") + call("bash", {"command": "ls"})',
                                              'say("Two files.")']
    # the upstream is gone: the replay sends nothing anywhere
    with create_test_session(record=rec, mock_tools={"bash": "a.txt b.txt"}) as t:
        t.run_sync(when("list the files", []))
        assert _texts(t) == ["Let me look.", "Two files."]
        assert t.recorder is not None and t.recorder.describe()["replayed"] == 2


def test_new_episodes_appends_calls_past_the_recording(tmp_path: Path) -> None:
    rec = tmp_path / "ls.yaml"
    with serve(_upstream(tmp_path)) as server:
        live = _live(server)
        with create_test_session(record=rec, mock_tools={"bash": "x"}, **live) as t:
            t.run_sync(when("list the files", []))
        with create_test_session(record=rec, mock_tools={"bash": "x"}, **live) as t:
            t.run_sync(when("list the files", []), when("thanks", []))
            assert _texts(t)[-1] == "You are welcome."
            assert t.recorder is not None and t.recorder.describe()["recorded"] == 1
    text = rec.read_text()
    assert text.count("initialPrompt") == 1 and 'userInputs: [[0, "thanks"]]' in text
    assert len(load_scenario(rec).compile().all_steps()) == 3


def test_mode_none_replays_only(tmp_path: Path) -> None:
    with pytest.raises(RecordingMissingError, match="no such recording, and record mode 'none'"):
        create_test_session(record=tmp_path / "missing.yaml", record_mode="none")
    rec = tmp_path / "short.yaml"
    rec.write_text("# recorded by autocue record\nname: short\ntimeline:\n  - llmResponse:\n"
                   "      - assistant: [[0, \"only one\"]]\n")
    with create_test_session(record=rec, record_mode="none", auto_assert=False) as t:
        t.run_sync(when("hi", []), when("again", []))
        msgs = [m for m in t.session.messages if isinstance(m, AssistantMessage)]
        assert msgs[0].text == "only one"
        assert msgs[-1].stop_reason == "error" and "has no reply for model call 2" in (msgs[-1].error_message or "")


def test_mode_all_rerecords_only_autocue_files(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\ntimeline:\n  - assistant: [[0, hand written]]\n")
    with pytest.raises(HarnessError, match="was not written by autocue"):
        create_test_session(record=mine, record_mode="all")
    assert mine.read_text().startswith("name: mine")  # untouched
    rec = tmp_path / "old.yaml"
    rec.write_text("# recorded by autocue record\nname: old\ntimeline:\n  - llmResponse:\n"
                   "      - assistant: [[0, \"stale\"]]\n")
    with serve(_upstream(tmp_path)) as server, \
            create_test_session(record=rec, record_mode="all", mock_tools={"bash": "x"}, **_live(server)) as t:
        t.run_sync(when("list the files", []))
    assert "stale" not in rec.read_text() and "Two files." in rec.read_text()
    with pytest.raises(HarnessError, match="pass the real provider= and model="):
        create_test_session(record=tmp_path / "none-yet.yaml")


@pytest.mark.slow
def test_pytest_option_sets_the_mode(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "from autocue.testing import create_test_session\n\n"
        "def test_it(tmp_path):\n"
        "    create_test_session(record=tmp_path / 'missing.yaml')\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--autocue-record=none",
                        str(tmp_path / "test_x.py")], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 1 and "record mode 'none' only replays" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--autocue-record=sometimes",
                        str(tmp_path / "test_x.py")], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 4 and "sometimes" in r.stderr
