"""Issue 32 req 2: a recording keeps each request's fingerprint and replay compares the live request
with it (``--match strict|loose|off``). Recorded through the real proxy from an ``autocue serve``
upstream, replayed by ``autocue serve``, driven by the official openai SDK in an agent loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openai
import pytest
from fix_agent import UPSTREAM, agent

from autocue.mockllm import serve
from autocue.mockllm.fingerprint import Conversation, Fingerprint, compare, fingerprint, nearest
from autocue.mockllm.incoming import Incoming
from autocue.record import RecordingServer
from autocue.scenario import load_scenario


@pytest.fixture
def recording(tmp_path: Path) -> tuple[Path, list[str]]:
    (tmp_path / "upstream.yaml").write_text(UPSTREAM)
    with serve(tmp_path / "upstream.yaml") as up, RecordingServer(upstream=up.base_url,
                                                                   out_dir=tmp_path / "recs") as proxy:
        said = agent(proxy.base_url)
        (path,) = proxy.files
    return path, said


def test_a_recording_carries_fingerprints_and_replays_itself_strictly(recording: tuple[Path, list[str]]) -> None:
    path, said = recording
    text = path.read_text()
    assert '"match":"strict"' in text and text.count('"request":{"api":"chat","model":"gpt-test"') == 3
    # a later request is written relative to the one before (linear in the conversation)
    assert '"keep":2' in text and '"keep":4' in text
    sc = load_scenario(path)
    assert sc.server.match == "strict"
    with serve(path) as replay:  # a fresh uuid, time and temporary directory: still the same request
        assert agent(replay.base_url) == said
        (s,) = replay.sessions()
    assert s["remaining"] == 0 and s["errors"] == [] and s["divergences"] == []


def test_strict_fails_a_changed_tool_list_naming_the_field(recording: tuple[Path, list[str]]) -> None:
    path, _ = recording
    with serve(path) as replay:
        with pytest.raises(openai.BadRequestError) as e:
            agent(replay.base_url, tools=("grep", "bash"))
        (s,) = replay.sessions()
        journal = replay.requests(s["session"])
    msg = str(e.value)
    assert "--match strict" in msg and "reply 1 (turn 1, step 1)" in msg and "tools differ: + grep, - read" in msg
    assert s["consumed"] == 0, "the refused reply stays unplayed"
    assert s["errors"] and "tools differ" in s["errors"][0]
    assert journal[-1]["outcome"] == "match" and journal[-1]["status"] == 400


def test_strict_names_a_changed_role_and_a_changed_tool_result(recording: tuple[Path, list[str]]) -> None:
    path, _ = recording
    role = r"reply 2 \(turn 1, step 2\).*messages\[3\]\.role: recorded tool, live user"
    with serve(path) as replay, pytest.raises(openai.BadRequestError, match=role):
        agent(replay.base_url, result_role="user")
    with serve(path) as replay, pytest.raises(openai.BadRequestError, match=r"messages\[3\] \(tool\): content differs"):
        agent(replay.base_url, result="FAILED")


def test_loose_serves_and_reports_off_does_not_compare(recording: tuple[Path, list[str]]) -> None:
    path, said = recording
    with serve(path, match="loose") as replay:
        assert agent(replay.base_url, result="FAILED") == said
        (s,) = replay.sessions()
        journal = replay.requests(s["session"])
    assert s["remaining"] == 0 and s["errors"] == []
    assert len(s["divergences"]) == 2 and "content differs" in s["divergences"][0]
    assert any("--match loose" in w for w in s["warnings"])
    assert [j["outcome"] for j in journal][1:] == ["reply (diverged from the recorded request)"] * 2
    with serve(path, match="off") as replay:
        assert agent(replay.base_url, tools=("grep",), result="FAILED") == said
        (s,) = replay.sessions()
    assert s["divergences"] == [] and s["errors"] == []


def test_serve_takes_match_and_refuses_a_bad_value(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "autocue.cli.main", "serve", "--match", "exact"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "--match" in r.stderr and "strict" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: b\nserver: {match: exact}\ninitialPrompt: hi\ntimeline:\n  - llmResponse:\n"
                   "      - assistant: [[0, hi]]\n")
    r = subprocess.run([sys.executable, "-m", "autocue.cli.main", "scenario", "check", str(bad)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "server.match must be strict, loose or off" in r.stdout + r.stderr


def test_nearest_recorded_request_is_the_one_with_fewest_differences() -> None:
    def fp(*messages: str, tools: tuple[str, ...] = ("read",)) -> Fingerprint:
        return Fingerprint("chat", "m", list(tools), "s", list(messages))

    recorded: list[Fingerprint | None] = [fp("u00000001"), fp("u00000001", "a00000002@0", "t00000003@0"), None]
    live = fp("u00000001", "a00000002@0", "t00000003@0")
    assert compare(recorded[0], live) == ["messages: recorded 1, live 3 (+ assistant, tool)"]  # type: ignore[arg-type]
    assert nearest(recorded, live, 0) == (1, [])
    assert compare(fp("a00000002@0"), fp("a00000002@1")) == [
        "messages[0] (assistant): tool-call ids differ (recorded 0, live 1)"]
    assert compare(fp("u1", tools=("read", "find")), fp("u1", tools=("read", "grep"))) == [
        "tools differ: + grep, - find"]


def _chat(messages: list[dict[str, object]], system: str | None = None) -> Incoming:
    msgs = ([{"role": "system", "content": system}] if system else []) + messages
    return Incoming(api="chat", body={"model": "m", "messages": msgs}, headers={}, path="/v1/chat/completions",
                    raw_size=0, stream=False, model="m", session_key="k")


def test_a_session_fingerprint_read_incrementally_equals_one_read_whole() -> None:
    """The session's conversation cache reads only new messages; an edited history is read again."""
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "call_x", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}
    history: list[dict[str, object]] = [{"role": "user", "content": "hi"}]
    conv = Conversation()
    result = {"role": "tool", "tool_call_id": "call_x", "content": "ok"}
    steps = [history, [*history, call, result], [*history, call, result, {"role": "user", "content": "more"}],
             [{"role": "user", "content": "edited"}, call], history]
    for msgs in steps:
        for system in (None, "be brief"):
            assert fingerprint(_chat(msgs, system), conv) == fingerprint(_chat(msgs, system))
