"""What ``autocue run`` says about a run's mock LLM session: the scenario's own name and file (not
the internal name it is registered under), advice in ``autocue run``'s terms, each warning once,
and nothing that changes from run to run on the program's screen (a golden of it stays valid)."""

from __future__ import annotations

import logging
import sys
import textwrap
from pathlib import Path

import pytest
from runner_helpers import files_block, kinds, one, scenario

pytestmark = pytest.mark.slow

ASK = textwrap.dedent("""\
    import json, sys, urllib.error, urllib.request
    url, key = sys.argv[1], sys.argv[2]
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    for n in range(int(sys.argv[3])):
        body = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools}
        req = urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(),
                                     {"content-type": "application/json", "authorization": "Bearer " + key})
        try:
            msg = json.load(urllib.request.urlopen(req))["choices"][0]["message"]
            print("reply:", msg.get("content") or [c["function"]["name"] for c in msg["tool_calls"]], flush=True)
        except urllib.error.HTTPError as e:
            print("error:", json.load(e)["error"]["message"], flush=True)
""")


def test_a_server_error_on_the_program_s_screen_names_the_scenario_and_is_the_same_every_run(tmp_path: Path) -> None:
    path = scenario(tmp_path, f"""\
name: stable screen
ah: {{cmd: "python3 ask.py {{openai_base_url}} {{api_key}} 2"}}
{files_block(**{"ask.py": ASK})}timeline:
  - llmResponse:
      - assistant: [[0, "the only reply"]]
  - screenshot: after
expect: {{exitCode: 0}}
""", "stable.yaml")
    first = one(path)
    screen = Path(first.screenshots["after"]).read_text()
    assert "reply: the only reply" in screen
    assert "scenario 'stable screen' (stable.yaml) has no more scripted responses" in " ".join(screen.split())
    second = one(path)  # compared with the golden the first run wrote
    assert kinds(first) == kinds(second) == ["llm"], second.failures  # the error; no golden difference


FAKE_AGENT = "import os, runpy, sys\nsys.argv[1:] = [os.environ['FAKE_URL'], os.environ['FAKE_KEY'], '1']\n" + ASK


def test_an_undeclared_tool_is_reported_once_with_advice_that_autocue_run_can_follow(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    bin_dir = tmp_path / "agents" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "fakeagent").write_text(f"#!{sys.executable}\n{FAKE_AGENT}")
    (bin_dir / "fakeagent").chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    prof = tmp_path / "agents.toml"
    prof.write_text('[agents.fakeagent]\nbinary = "fakeagent"\nprint_args = []\n'
                    'env = {FAKE_URL = "{openai_base_url}", FAKE_KEY = "{api_key}"}\n')
    path = scenario(tmp_path, """\
        name: deploy it
        initialPrompt: deploy
        timeline:
          - llmResponse:
              - agentToolUse: {toolName: deploy, input: {env: prod}}
          - llmResponse:
              - assistant: [[0, "deployed"]]
        """, "deploy.yaml")
    with caplog.at_level(logging.WARNING, logger="autocue.mockllm"):
        r = one(path, agent="fakeagent", agents_files=(str(prof),))
    assert kinds(r) == ["llm"] and "reply: ['deploy']" in r.last_screen
    [line] = [d for d in r.diagnostics if "does not declare" in d]
    assert line == ("scripted tool not declared by the agent: reply 1 of scenario 'deploy it' (deploy.yaml) calls "
                    "deploy, which this OpenAI Chat Completions request does not declare (declared: bash); the agent "
                    "will probably reject the call: fix the tool's name in the scenario, or run the agent with a "
                    "launch profile whose `tool_profile` maps it (a profile of your own: --agents-file FILE, see "
                    "docs/agents.md)")
    assert not [rec for rec in caplog.records if "does not declare" in rec.getMessage()]  # reported once, not logged
