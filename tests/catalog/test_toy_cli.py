"""Adding an agent CLI is one catalogue file plus one registry line: the toy CLI of ``toy_cli.py``,
added to ``autocue.catalog.clis.CLIS``, is launched by ``autocue run --agent toy`` (a fake binary
that talks to the embedded mock server), detected by the mock server from the tools it declares,
its tool calls mapped onto its names, its title request answered without taking a scripted reply,
and listed by ``autocue agents`` and in the commands' help."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import httpx2
import pytest
import toy_cli

import autocue.catalog.clis
from autocue.cli.main import main

# the toy binary: `toy --version`, or `toy --ask PROMPT`: a title request, then its turns, on the mock server
TOY = textwrap.dedent("""\
    import json, os, pathlib, sys, urllib.request
    if sys.argv[1:] == ["--version"]:
        print("toy 1.0.0")
        sys.exit(0)
    url, key, prompt = os.environ["TOY_BASE_URL"], os.environ["TOY_API_KEY"], sys.argv[2]
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
             for n in ("toy_shell", "toy_write")]
    def ask(body):
        req = urllib.request.Request(url + "/chat/completions", json.dumps({"model": "toy", **body}).encode(),
                                     {"content-type": "application/json", "authorization": "Bearer " + key})
        return json.load(urllib.request.urlopen(req))["choices"][0]["message"]
    title = ask({"messages": [{"role": "system", "content": "Name this toy session in five words."},
                              {"role": "user", "content": prompt}]})
    print("title:", title["content"], flush=True)
    messages = [{"role": "user", "content": prompt}]
    while True:
        msg = ask({"messages": messages, "tools": tools})
        messages.append(msg)
        if not msg.get("tool_calls"):
            print("answer:", msg["content"], flush=True)
            break
        for call in msg["tool_calls"]:
            name, args = call["function"]["name"], json.loads(call["function"]["arguments"])
            print("call:", name, json.dumps(args, sort_keys=True), flush=True)
            if name == "toy_write":
                pathlib.Path(args["file"]).write_text(args["text"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": "ok"})
""")

SCENARIO = """\
name: toy_note
initialPrompt: write a note
timeline:
  - llmResponse:
      - writeFile: {path: note.txt, content: "from the toy\\n"}
  - llmResponse:
      - assistant: [[0, "noted"]]
  - assert:
      fs: {exists: [note.txt]}
      text: {contains: ["title: toy: toy note", 'call: toy_write {"file": "note.txt", "text": "from the toy\\n"}',
                        "answer: noted"]}
expect: {exitCode: 0}
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The registry with the toy CLI added, and its binary in ``$AUTOCUE_AGENTS_DIR/bin``."""
    monkeypatch.setattr(autocue.catalog.clis, "CLIS", (*autocue.catalog.clis.CLIS, toy_cli.CLI))
    bin_dir = tmp_path / "agents" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "toy").write_text(f"#!{sys.executable}\n{TOY}")
    (bin_dir / "toy").chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    return tmp_path


@pytest.mark.slow
def test_autocue_run_launches_the_toy_cli(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (toy / "toy.yaml").write_text(SCENARIO)
    code = main(["run", str(toy / "toy.yaml"), "--agent", "toy", "--json", "--out", str(toy / "out"), "--no-ci",
                 "--timeout", "60"])
    report = json.loads(capsys.readouterr().out)
    [result] = report["scenarios"]
    assert code == 0 and result["passed"], result
    # the screen showed the side call's answer, the call in the toy's names, and the last reply (the assert)
    assert result["transcript"][-1].endswith("AssertStep: passed")
    assert result["side_requests"] == [{"request": 1, "kind": "known", "last": "write a note"}]


def test_the_mock_server_detects_the_toy_cli_maps_its_calls_and_answers_its_side_call(toy: Path) -> None:
    from autocue.mockllm import serve
    from autocue.scenario import load_scenario_text

    tools = [{"type": "function", "function": {"name": n}} for n in ("toy_shell", "toy_write")]
    with serve(load_scenario_text(SCENARIO, "toy.yaml")) as server:
        url = server.base_url + "/v1/chat/completions"
        title = httpx2.post(url, json={"model": "m", "messages": [
            {"role": "system", "content": "Name this toy session in five words."},
            {"role": "user", "content": "write a note"}]}, headers={"authorization": "Bearer k"})
        assert title.json()["choices"][0]["message"]["content"] == "toy: toy note"
        turn = httpx2.post(url, json={"model": "m", "tools": tools, "messages": [
            {"role": "user", "content": "write a note"}]}, headers={"authorization": "Bearer k"})
        [call] = turn.json()["choices"][0]["message"]["tool_calls"]
        assert call["function"]["name"] == "toy_write"
        assert json.loads(call["function"]["arguments"]) == {"file": "note.txt", "text": "from the toy\n"}
        s = server.session("k")
        assert (s["profile"], s["profile_source"]) == ("toy", "detected")
        assert (s["side_calls"], s["consumed"]) == (1, 1)


def test_autocue_agents_and_the_help_list_the_toy_cli(toy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["agents"]}
    assert rows["toy"]["installed"] and (rows["toy"]["version"], rows["toy"]["verified"]) == ("1.0.0", True)
    assert rows["toy"]["tool_profile"] == "toy"
    for command, listed in (["run", "launch profile for every scenario: mock, autocue, claude,"],
                            ["serve", "tool profile for every session (claude-code,"]):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert listed in text, text
        assert (", toy, or one of --agents-file" if command == "run" else ", autocue, toy)") in text
