"""Replaying a folder of recordings: the server picks the recording the client is talking to.

Sessions are recorded through the recording proxy (``RecordingServer``) in front of a real mock
server, each with its own upstream so the two recordings differ in what they hold; the folder is
then served and each recording is replayed with the official ``openai`` SDK. A recording is
chosen by the client key it was made under (its hash is in the file, never the key), else by the
request's content (API, model, system text, tools, first user message); two recordings that still
match equally get a 400 naming both files and how to pick one.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import openai
import pytest

from autocue.mockllm.server import serve
from autocue.record import RecordingServer

PROMPT = "list the files"
CHAT_THREE = """\
name: chat-three
initialPrompt: list the files
timeline:
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: call_1, args: {command: ls}}
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: call_2, args: {command: cat a.txt}}
  - llmResponse:
      - assistant: [[0, "chat: two files"]]
"""
ONE = """\
name: one-{tag}
initialPrompt: list the files
timeline:
  - llmResponse:
      - assistant: [[0, "{tag}: done"]]
"""
TOOLS: Any = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def chat(url: str, key: str, *, model: str = "m", system: str | None = None) -> list[str]:
    """A Chat Completions tool loop with the official SDK: what the model said, in order."""
    client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
    msgs: list[Any] = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": PROMPT}]
    said: list[str] = []
    for _ in range(5):
        m = client.chat.completions.create(model=model, messages=msgs, tools=TOOLS).choices[0].message
        said.append(m.content or ",".join(c.function.arguments for c in m.tool_calls or []))
        msgs.append(m.model_dump(exclude_none=True))
        msgs.extend({"role": "tool", "tool_call_id": c.id, "content": "ok"} for c in m.tool_calls or [])
        if not m.tool_calls:
            break
    return said


def responses(url: str, key: str) -> list[str]:
    client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
    return [client.responses.create(model="m", input=PROMPT).output_text]


def record(tmp_path: Path, upstream: str, key: str, drive: Any) -> Path:
    """Record one session (``drive(url, key)``) of an upstream playing ``upstream`` into tmp_path/recs."""
    n = len(list(tmp_path.glob("up*.yaml")))
    up_file = tmp_path / f"up{n}.yaml"
    up_file.write_text(upstream)
    with serve(up_file) as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "recs") as proxy:
        drive(proxy.base_url, key)
    (path,) = proxy.files  # read once the proxy stopped: it writes after the reply has been passed on
    return path


def ask(server: Any, key: str, **extra: Any) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as e:
        chat(server.base_url, key, **extra)
    return e.value


@pytest.mark.slow
def test_a_chat_and_a_responses_recording_of_one_prompt_replay_to_their_own_clients(tmp_path: Path) -> None:
    chat_file = record(tmp_path, CHAT_THREE, "sk-rec-chat-0123456789", chat)
    resp_file = record(tmp_path, ONE.format(tag="responses"), "sk-rec-resp-0123456789", responses)
    text = chat_file.read_text()
    assert "sk-rec-chat-0123456789" not in text
    assert hashlib.sha256(b"sk-rec-chat-0123456789").hexdigest() in text, "the key's hash chooses the recording"
    with serve(tmp_path / "recs") as replay:
        # by the key each was recorded under (each in both orders of arrival)
        assert responses(replay.base_url, "sk-rec-resp-0123456789") == ["responses: done"]
        assert chat(replay.base_url, "sk-rec-chat-0123456789") == ['{"command":"ls"}', '{"command":"cat a.txt"}',
                                                                   "chat: two files"]
        # a fresh key: by the request's API
        assert chat(replay.base_url, "fresh-1") == ['{"command":"ls"}', '{"command":"cat a.txt"}', "chat: two files"]
        assert responses(replay.base_url, "fresh-2") == ["responses: done"]
        by = {s["key"]: (s["source"].rpartition(":")[0], s["selected_by"]) for s in replay.sessions()}
    assert by["sk-rec-chat-0123456789"] == (str(chat_file), "session key")
    assert by["sk-rec-resp-0123456789"] == (str(resp_file), "session key")
    assert by["fresh-1"][0] == str(chat_file) and "api" in by["fresh-1"][1]


@pytest.mark.slow
def test_two_chat_recordings_are_told_apart_by_model_and_by_system_text(tmp_path: Path) -> None:
    record(tmp_path, ONE.format(tag="small"), "k-small-0123456789",
           lambda u, k: chat(u, k, model="small", system="be brief"))
    record(tmp_path, ONE.format(tag="large"), "k-large-0123456789",
           lambda u, k: chat(u, k, model="large", system="be brief"))
    record(tmp_path, ONE.format(tag="pirate"), "k-pirate-0123456789",
           lambda u, k: chat(u, k, model="large", system="talk like a pirate"))
    # loose: the key's recording is served to a request that differs from it (another model, no system
    # text), and the difference is reported (strict, a recording's default, would refuse it)
    with serve(tmp_path / "recs", match="loose") as replay:
        assert chat(replay.base_url, "f1", model="large", system="talk like a pirate") == ["pirate: done"]
        assert chat(replay.base_url, "f2", model="small", system="be brief") == ["small: done"]
        assert chat(replay.base_url, "f3", model="large", system="be brief") == ["large: done"]
        assert chat(replay.base_url, "k-small-0123456789", model="large") == ["small: done"], "the key comes first"
        by = {s["key"]: s["selected_by"] for s in replay.sessions()}
        diverged = {s["key"]: s["divergences"] for s in replay.sessions()}
    assert "model" in by["f2"] and "system" in by["f1"]
    assert diverged["f1"] == diverged["f2"] == [] and "model: recorded small, live large" in diverged[
        "k-small-0123456789"][0]


@pytest.mark.slow
def test_two_identical_recordings_are_refused_with_both_files_and_how_to_pick(tmp_path: Path) -> None:
    a = record(tmp_path, ONE.format(tag="first"), "k-first-0123456789", chat)
    b = record(tmp_path, ONE.format(tag="second"), "k-second-0123456789", chat)
    with serve(tmp_path / "recs") as replay:
        assert chat(replay.base_url, "k-second-0123456789") == ["second: done"]
        err = ask(replay, "someone-else")
        assert [s["key"] for s in replay.sessions()] == ["k-second-0123456789"], "a refused request starts none"
    msg = err.body["message"] if isinstance(err.body, dict) else str(err.body)  # type: ignore[index]
    assert err.status_code == 400 and "\n" not in msg
    assert str(a) in msg and str(b) in msg
    assert "--session-key" in msg and f"autocue serve {a}" in msg, msg
    # the ways it names: --session-key KEY, and one file instead of the folder
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "serve", str(tmp_path / "recs"),
                             "--session-key", "k-first-0123456789"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[-1]
        assert chat(url, "someone-else") == ["first: done"]
    finally:
        proc.terminate()
        proc.wait(10)
    with serve(b) as one:
        assert chat(one.base_url, "someone-else") == ["second: done"]


def test_hand_written_scenarios_of_one_prompt_are_refused_and_the_longest_contained_prompt_wins(
        tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name, prompt in (("a", "list the files"), ("b", "list the files"), ("c", "the files"),
                         ("d", "the files in src")):
        (folder / f"{name}.yaml").write_text(ONE.replace("list the files", prompt).format(tag=name))
    with serve(folder) as server:
        err = ask(server, "k1")
        client = openai.OpenAI(base_url=server.base_url + "/v1", api_key="k2", max_retries=0)
        got = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "show the files in src"}])
    msg = str(err.body["message"])  # type: ignore[index]
    assert f"2 scenarios match this request equally (first user message): {folder / 'a.yaml'}, " \
           f"{folder / 'b.yaml'}. Pick one: name it with the x-scenario-name header" in msg, msg
    assert got.choices[0].message.content == "d: done", "the longest prompt contained in the request"
