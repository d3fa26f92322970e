"""Issue 32 req 3: ``autocue replay FILE --from N --upstream URL`` plays the recording's first N replies
and sends the rest to a live upstream (here ``autocue serve`` playing another scenario: "another
model"), writing the branch as its own scenario. Driven by the official openai SDK in an agent loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
import orjson
import pytest
from fix_agent import UPSTREAM, agent

from autocue.mockllm import serve
from autocue.record import RecordingServer
from autocue.scenario import load_scenario

CMD = [sys.executable, "-m", "autocue.cli.main", "replay"]
OTHER_MODEL = """\
name: other-model
initialPrompt: fix the bug
timeline:
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: call_9, args: {command: "pytest -x"}}
  - llmResponse:
      - assistant: [[0, "Could not fix it."]]
"""


def _record(tmp_path: Path) -> tuple[Path, list[str]]:
    (tmp_path / "upstream.yaml").write_text(UPSTREAM)
    with serve(tmp_path / "upstream.yaml") as up, RecordingServer(upstream=up.base_url,
                                                                   out_dir=tmp_path / "recs") as proxy:
        said = agent(proxy.base_url)
        (path,) = proxy.files
    return path, said


def test_fork_plays_n_replies_from_the_file_then_the_upstream_and_writes_the_branch(tmp_path: Path) -> None:
    recorded, said = _record(tmp_path)
    assert said == ["Looking.", 'read {"path":"a.py"}', "", 'bash {"command":"pytest"}', "Fixed."]
    (tmp_path / "other.yaml").write_text(OTHER_MODEL)
    branch = tmp_path / "branch.yaml"
    with serve(tmp_path / "other.yaml") as other:
        proc = subprocess.Popen([*CMD, str(recorded), "--from", "1", "--upstream", other.base_url, "--out",
                                 str(branch), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            info = orjson.loads(proc.stdout.readline())
            forked = agent(info["url"])
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=10)
        (up_session,) = other.sessions()
    assert info["from"] == 1 and info["replies"] == 3 and info["out"] == str(branch)
    assert forked == ["Looking.", 'read {"path":"a.py"}', "", 'bash {"command":"pytest -x"}', "Could not fix it."]
    assert up_session["consumed"] == 2, "replies 2 and 3 came from the upstream"
    assert "Traceback" not in err
    sc = load_scenario(branch)  # its own scenario: the recorded reply, then the upstream's two
    assert sc.name == "branch" and sc.initial_prompt == "fix the bug" and sc.server.match == "strict"
    steps = sc.compile().all_steps()
    assert [c.name for s in steps for c in s.tool_calls] == ["read", "bash"]
    assert steps[-1].content[0].text == "Could not fix it."  # type: ignore[union-attr]
    text = branch.read_text()
    assert text.count('"request":') == 3 and KEY_NOT_IN(text)
    with serve(branch) as replay:  # the branch replays strictly with the same agent
        assert agent(replay.base_url) == forked
        (s,) = replay.sessions()
    assert s["remaining"] == 0 and s["errors"] == []


def KEY_NOT_IN(text: str) -> bool:
    from fix_agent import KEY

    return KEY not in text and KEY[:12] not in text


def test_fork_fails_an_agent_that_diverges_before_n(tmp_path: Path) -> None:
    from autocue.mockllm.server import LoopbackServer
    from autocue.record.fork import ForkApp

    recorded, _ = _record(tmp_path)
    (tmp_path / "other.yaml").write_text(OTHER_MODEL)
    with serve(tmp_path / "other.yaml") as other:
        app = ForkApp(recorded, 2, other.base_url, tmp_path / "b.yaml")
        with LoopbackServer(app, "127.0.0.1", 0) as fork:
            import openai

            with pytest.raises(openai.BadRequestError, match=r"reply 2 .*content differs"):
                agent(fork.base_url, result="FAILED")
        assert other.sessions() == [], "nothing reached the upstream"


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "7", "--upstream", "http://127.0.0.1:9"], "--from 7: .* holds 3 replies; give 0 to 3"),
    (["--from", "1"], "--from N and --upstream URL go together"),
    (["--from", "1", "--upstream", "ftp://x"], "expected an http:// or https:// URL"),
])
def test_bad_fork_arguments_are_one_line_each(tmp_path: Path, args: list[str], message: str) -> None:
    recorded, _ = _record(tmp_path)
    r = subprocess.run([*CMD, str(recorded), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    import re

    assert re.search(message, r.stderr), r.stderr


def test_a_hand_written_scenario_is_not_forked(tmp_path: Path) -> None:
    (tmp_path / "hand.yaml").write_text(UPSTREAM)
    r = subprocess.run([*CMD, str(tmp_path / "hand.yaml"), "--from", "1", "--upstream", "http://127.0.0.1:9"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "not a recording written by autocue record" in r.stderr


def test_replay_without_from_serves_the_recording_with_its_match_mode(tmp_path: Path) -> None:
    recorded, said = _record(tmp_path)
    proc = subprocess.Popen([*CMD, str(recorded), "--match", "loose", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = orjson.loads(proc.stdout.readline())["url"]
        assert agent(url, result="FAILED") == said  # loose: served, though every tool result differs
        sessions = orjson.loads(httpx2.get(url + "/_autocue/sessions", timeout=10).content)
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    (s,) = sessions if isinstance(sessions, list) else sessions["sessions"]
    assert len(s["divergences"]) == 2 and s["errors"] == []
