"""The embedded mock LLM server under the runner: autocue's own CLI, a command using it, sync, ``llm`` failures."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from runner_helpers import files_block, kinds, one, run, scenario

pytestmark = pytest.mark.slow

ASK_PROG = textwrap.dedent("""\
    import json, sys, time, urllib.request
    print("asking", flush=True)
    for n in range(int(sys.argv[3])):
        time.sleep(0.4)
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        req = urllib.request.Request(sys.argv[1] + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + sys.argv[2],
                                              "Content-Type": "application/json"})
        reply = json.load(urllib.request.urlopen(req))
        print("reply:", reply["choices"][0]["message"]["content"], flush=True)
""")


def ask_scenario(tmp_path: Path, requests: int) -> Path:
    return scenario(tmp_path, f"""\
name: ask
ah: {{cmd: "python3 prog.py {{openai_base_url}} {{api_key}} {requests}"}}
{files_block(**{"prog.py": ASK_PROG})}
timeline:
  - llmResponse:
      - assistant: [[0, "pong"]]
  - screenshot: after_first
  - assert:
      text: {{contains: ["reply: pong"]}}
  - llmResponse:
      - assistant: [[0, "second"]]
expect: {{exitCode: 0}}
""")


def test_events_wait_for_the_replies_before_them(tmp_path: Path) -> None:
    r = one(ask_scenario(tmp_path, 2))
    # the screen assertion between the replies is the executor's: the server does not evaluate it
    # (it cannot see the terminal, and would answer the second request 422)
    assert r.passed, r.failures
    # the program sleeps before its request: a quiet screen alone would have been "asking"
    assert Path(r.screenshots["after_first"]).read_text() == "asking\nreply: pong\n"
    assert r.last_screen == "asking\nreply: pong\nreply: second"


def test_replies_left_unplayed_are_an_llm_failure(tmp_path: Path) -> None:
    r = one(ask_scenario(tmp_path, 1))
    assert kinds(r) == ["llm"]
    assert r.failures[0].message == 'the program left 1 of 2 scripted replies unplayed (next: say("second"))'


def test_a_program_that_never_calls_the_server(tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
name: silent
ah: {cmd: "sh -c 'echo {api_key} > /dev/null'"}
timeline:
  - llmResponse:
      - assistant: [[0, "unused"]]
""")
    r = one(path)
    assert kinds(r) == ["llm"] and "never called the mock LLM server (1 replies scripted)" in r.failures[0].message


AUTOCUE_TUI = """\
name: autocue_tui
agent: autocue
server: {{llmApiStyle: {style}}}
repo:
  files:
    - {{path: notes.txt, contents: "the answer is 42\\n"}}
timeline:
  - userInputs: [[0, "what do my notes say?"]]
  - llmResponse:
      - assistant: [[0, "Let me look."]]
      - readFile: {{path: notes.txt}}
  - llmResponse:
      - assistant: [[0, "The notes say 42."]]
  - screenshot: answered
  - assert:
      text: {{contains: ["✓ read: the answer is 42", "The notes say 42."]}}
  - userInputs: [[0, "<ctrl-d>"]]
expect: {{exitCode: 0}}
"""


@pytest.mark.parametrize("style", ["anthropic", "openai"])
def test_autocue_interactive_against_the_embedded_server(tmp_path: Path, style: str) -> None:
    r = one(scenario(tmp_path, AUTOCUE_TUI.format(style=style)))
    assert r.passed, r.failures
    assert Path(r.screenshots["answered"]).read_text() == (
        "autocue · mock/mock-model · <workspace> · /help for commands\n"
        "> what do my notes say?\n"
        "Let me look.\n"
        '→ read {"path": "notes.txt"}\n'
        "✓ read: the answer is 42\n"
        "The notes say 42.\n"
        ">\n"
    )


def test_autocue_print_mode_and_parallel_runs_share_one_server(tmp_path: Path) -> None:
    for n in range(3):
        scenario(tmp_path, f"""\
name: print_{n}
agent: autocue
initialPrompt: "say {n}"
timeline:
  - llmResponse:
      - assistant: [[0, "said {n}"]]
expect: {{exitCode: 0}}
""", f"p{n}.yaml")
    report = run(tmp_path, jobs=3)
    assert [s.passed for s in report.scenarios] == [True] * 3, [s.failures for s in report.scenarios]
    assert [s.last_screen for s in report.scenarios] == ["said 0", "said 1", "said 2"]


def test_autocue_runs_in_print_mode_when_the_inputs_target_the_cli(tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
name: cli_target
agent: autocue
initialPrompt: "say it"
timeline:
  - llmResponse:
      - assistant: [[0, "said it"]]
  - userInputs: [[0, "ignored by -p"]]
    target: cli
expect: {exitCode: 0}
""")
    r = one(path)
    assert r.passed, r.failures
    assert r.last_screen.splitlines()[-1] == "said it" and "/help for commands" not in r.last_screen
