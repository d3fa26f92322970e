"""Launch profiles of real agent CLIs (``autocue.runner.agents``) without the CLIs: what each profile
seeds and passes, user-defined profiles in TOML/YAML run end to end (a Python program plays the CLI
against the embedded server), the child's environment, side requests and diagnostics."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from runner_helpers import one, scenario

from autocue.runner.agents import BUILTIN, profiles
from autocue.runner.agents.base import RunValues, prepare
from autocue.runner.agents.user import AgentProfileError, load_profiles


def values(tmp: Path, style: str = "openai") -> RunValues:
    return RunValues(workspace=tmp / "ws", home=tmp / "home", base_url="http://127.0.0.1:9/s/k/scenario/x",
                     openai_base_url="http://127.0.0.1:9/s/k/scenario/x/v1", api_key="run-key-0123456789abcdefXYZ",
                     prompt="create hello.txt", api_style=style)


@pytest.mark.parametrize("name", sorted(set(BUILTIN) - {"autocue"}))
def test_each_profile_seeds_a_private_home_and_passes_the_prompt_and_key(name: str, tmp_path: Path) -> None:
    profile = BUILTIN[name]
    run = values(tmp_path, next(iter(profile.apis)))
    argv, env = prepare(profile, run, binary="/bin/" + profile.binary, interactive=False, extra_args=("--x",))
    assert argv[0] == "/bin/" + profile.binary and argv[-1] == "--x"
    assert "create hello.txt" in argv or argv[argv.index("mock/mock") + 1:-1] == ["create", "hello.txt"]
    assert env["HOME"] == str(tmp_path / "home")
    seeded = " ".join(env.values()) + " ".join(p.read_text() for p in (tmp_path / "home").rglob("*") if p.is_file())
    assert run.api_key in seeded + " ".join(argv), f"{name}: the session key reaches the CLI"
    for p in (tmp_path / "home").rglob("*.json"):
        json.loads(p.read_text())  # seeded JSON stays JSON after the placeholders are filled
    assert profile.version in profile.verified and profile.package


def test_claude_is_seeded_past_onboarding_trust_and_the_key_prompt(tmp_path: Path) -> None:
    prepare(BUILTIN["claude"], values(tmp_path, "anthropic"), binary="claude", interactive=True)
    cfg = json.loads((tmp_path / "home" / ".claude.json").read_text())
    assert cfg["hasCompletedOnboarding"] is True
    assert cfg["projects"][str(tmp_path / "ws")]["hasTrustDialogAccepted"] is True
    assert cfg["customApiKeyResponses"]["approved"] == ["run-key-0123456789abcdefXYZ"[-20:]]


@pytest.mark.parametrize(("style", "api", "url"), [("openai", "openai-completions", "/v1"),
                                                    ("anthropic", "anthropic-messages", "/x"),
                                                    ("openai-responses", "openai-responses", "/v1"),
                                                    ("gemini", "openai-completions", "/v1")])
def test_pi_speaks_the_scenarios_api_style(style: str, api: str, url: str, tmp_path: Path) -> None:
    _, env = prepare(BUILTIN["pi"], values(tmp_path, style), binary="pi", interactive=False)
    models = json.loads((Path(env["PI_CODING_AGENT_DIR"]) / "models.json").read_text())["providers"]["mock"]
    assert models["api"] == api and models["baseUrl"].endswith(url)


def test_opencode_config_is_json_and_the_prompt_goes_as_words(tmp_path: Path) -> None:
    argv, env = prepare(BUILTIN["opencode"], values(tmp_path, "anthropic"), binary="opencode", interactive=False)
    cfg = json.loads(env["OPENCODE_CONFIG_CONTENT"])
    assert cfg["provider"]["mock"]["npm"] == "@ai-sdk/anthropic" and argv[-2:] == ["create", "hello.txt"]


FAKE_CLI = textwrap.dedent("""\
    import json, os, sys, urllib.request
    args = sys.argv[1:]
    prompt = args[args.index("--prompt") + 1]
    print("CI=" + repr(os.environ.get("CI")), "ANTHROPIC=" + repr(os.environ.get("ANTHROPIC_API_KEY")), flush=True)
    print("args", " ".join(args), flush=True)
    def ask(tools):
        body = {"model": "m", "messages": [{"role": "user", "content": prompt}], "tools": tools}
        headers = {"content-type": "application/json", "authorization": "Bearer " + os.environ["FAKE_KEY"]}
        req = urllib.request.Request(os.environ["FAKE_URL"] + "/chat/completions", json.dumps(body).encode(), headers)
        return json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"]
    tool = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    if "--title-first" in args:
        print("title:", ask([]), flush=True)
    print("reply:", ask(tool), flush=True)
    print("fake cli says goodbye on stderr", file=sys.stderr, flush=True)
""")

TOML = """
[agents.fakecli]
binary = "fakecli"
print_args = ["--prompt", "{prompt}"]
env = {FAKE_URL = "{openai_base_url}", FAKE_KEY = "{api_key}"}
verified = ["1.0"]
"""

SCENARIO = """
name: fake
initialPrompt: say hi
timeline:
  - llmResponse:
      - assistant: [[0, "hi from the script"]]
  - assert:
      text: {contains: ["reply: hi from the script"]}
expect: {exitCode: 0}
"""


@pytest.fixture
def fake_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "agents" / "bin"
    bin_dir.mkdir(parents=True)
    exe = bin_dir / "fakecli"
    exe.write_text(f"#!{sys.executable}\n{FAKE_CLI}")
    exe.chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "developer-secret")
    return exe


@pytest.mark.parametrize("suffix", [".toml", ".yaml"])
def test_a_user_defined_profile_runs_by_name_without_ci_or_the_developers_keys(
        suffix: str, tmp_path: Path, fake_cli: Path) -> None:
    prof = tmp_path / f"agents{suffix}"
    if suffix == ".toml":
        prof.write_text(TOML)
    else:
        prof.write_text("agents:\n  fakecli:\n    binary: fakecli\n    print_args: ['--prompt', '{prompt}']\n"
                        "    env: {FAKE_URL: '{openai_base_url}', FAKE_KEY: '{api_key}'}\n")
    path = scenario(tmp_path, SCENARIO)
    r = one(path, agent="fakecli", agents_files=(str(prof),), agent_args=("--extra", "1"))
    assert r.passed, (r.failures, r.last_screen, r.diagnostics)
    assert "CI=None ANTHROPIC=None" in r.last_screen
    assert "args --prompt say hi --extra 1" in r.last_screen
    assert r.side_requests == [] and r.diagnostics == []


def test_an_unknown_tool_less_request_is_reported_as_a_suspected_side_request(tmp_path: Path, fake_cli: Path) -> None:
    prof = tmp_path / "agents.toml"
    prof.write_text(TOML)
    path = scenario(tmp_path, SCENARIO)
    r = one(path, agent="fakecli", agents_files=(str(prof),), agent_args=("--title-first",))
    assert not r.passed
    assert r.side_requests == [{"request": 1, "kind": "suspected", "last": "say hi", "reply": 1}]
    text = "\n".join(r.diagnostics)
    assert "suspected side request: #1 declared no tools but took scripted reply 1" in text
    assert "first divergent request: #2 chat /v1/chat/completions -> 400 exhausted; declared tools: bash" in text
    assert "agent stderr (last lines):" in text and "HTTP Error 400" in text  # its traceback, on stderr
    shown = r.to_json()
    assert shown["diagnostics"] == r.diagnostics and "title: hi from the script" in shown["last_screen"]


def test_a_missing_cli_is_a_setup_failure_naming_the_installer(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing") + os.pathsep + os.path.dirname(sys.executable))
    r = one(scenario(tmp_path, SCENARIO), agent="codex")
    [f] = r.failures
    assert f.kind == "setup" and "`codex` is not installed" in f.message and "autocue agents install codex" in f.message


@pytest.mark.parametrize(("text", "where"), [
    ("[agents.x]\nbinary = 'x'\n", "agents.x: missing `print_args`"),
    ("[agents.x]\nbinary = 'x'\nprint_args = ['a']\nbogus = 1\n", "agents.x.bogus: unknown field"),
    ("[agents.x]\nbinary = 'x'\nprint_args = 'a'\n", "agents.x.print_args: expected a list of strings"),
    ("name = 1\n", "expected an `agents` table"),
    ("[agents\n", "agents.toml"),
])
def test_a_bad_profiles_file_names_the_file_and_key(text: str, where: str, tmp_path: Path) -> None:
    f = tmp_path / "agents.toml"
    f.write_text(text)
    with pytest.raises(AgentProfileError) as e:
        load_profiles(f)
    assert str(f) in str(e.value) and where in str(e.value)


def test_a_bad_profiles_file_is_a_setup_failure_of_the_run(tmp_path: Path) -> None:
    f = tmp_path / "agents.yaml"
    f.write_text("agents: [1,\n")
    r = one(scenario(tmp_path, SCENARIO), agent="fakecli", agents_files=(str(f),))
    [fail] = r.failures
    assert fail.kind == "setup" and f"{f}:" in fail.message


def test_a_user_profile_replaces_a_builtin_one_of_the_same_name(tmp_path: Path) -> None:
    f = tmp_path / "agents.toml"
    f.write_text("[agents.claude]\nbinary = 'my-claude'\nprint_args = ['{prompt}']\n")
    got = profiles([f])["claude"]
    assert (got.binary, got.source) == ("my-claude", str(f))


def test_aider_edits_become_whole_line_diff_blocks_one_reply_per_turn(tmp_path: Path) -> None:
    from autocue.runner.agents.aider import aider_script
    from autocue.scenario import load_scenario_text

    (tmp_path / "config.json").write_text('{"greeting": "hello world"}\n')
    sc = load_scenario_text(textwrap.dedent("""
        name: e
        initialPrompt: edit
        timeline:
          - llmResponse:
              - assistant: [[0, "Reading."]]
              - readFile: {path: config.json}
          - llmResponse:
              - assistant: [[0, "Editing."]]
              - editFile: {path: config.json, oldText: "hello world", newText: "hello agents"}
          - llmResponse:
              - assistant: [[0, "Done."]]
        """), "e.yaml")
    [turn] = aider_script(sc.compile(), tmp_path).turns
    [reply] = turn.steps
    assert reply.content[0].text == ('Reading.\n\nEditing.\n\nconfig.json\n```\n<<<<<<< SEARCH\n'
                                     '{"greeting": "hello world"}\n=======\n{"greeting": "hello agents"}\n'
                                     '>>>>>>> REPLACE\n```\n\n\nDone.')
    assert reply.source == sc.compile().all_steps()[-1].source  # the executor waits for it where "Done." was


def test_the_launch_profiles_tool_profile_maps_calls_once(tmp_path: Path) -> None:
    """The run's session starts with the CLI's tool profile: a scripted readFile reaches Gemini CLI as
    read_file with file_path (mapping it twice, as detection after a pre-mapped script did, raised a 500)."""
    import httpx2

    from autocue.runner.llm import register
    from autocue.scenario import load_scenario_text

    sc = load_scenario_text("name: g\ntimeline:\n  - llmResponse:\n      - readFile: {path: a.txt}\n", "g.yaml")
    run = register(sc, sc.compile(), tool_profile="gemini-cli")
    try:
        body = {"contents": [{"role": "user", "parts": [{"text": "read"}]}],
                "tools": [{"functionDeclarations": [{"name": "read_file"}, {"name": "list_directory"}]}]}
        r = httpx2.post(run.base_url + "/v1beta/models/m:generateContent", json=body,
                        headers={"x-goog-api-key": run.key}, timeout=10)
        assert r.status_code == 200, r.text
        call = r.json()["candidates"][0]["content"]["parts"][0]["functionCall"]
        assert call["name"] == "read_file" and call["args"]["file_path"] == "a.txt"
        st = run.handle.status()
        assert st is not None and (st["profile"], st["profile_source"]) == ("gemini-cli", "launch profile")
        assert (run.handle.served, run.handle.remaining, run.handle.errors) == (1, 0, [])
    finally:
        run.release()


FAKE_TUI = textwrap.dedent("""\
    import json, os, sys, termios, time, tty
    tty.setraw(0)
    time.sleep(0.8)                      # starting up: what is typed now is lost
    termios.tcflush(0, termios.TCIFLUSH)
    os.write(1, b"READY> ")
    log, t0 = [], time.monotonic()
    while not (len(log) >= 2 and log[-1][1] == log[-2][1] == "\\x03"):
        data = os.read(0, 100)
        log.append([time.monotonic() - t0, data.decode()])
        os.write(1, data.replace(b"\\r", b"\\r\\n").replace(b"\\x03", b"^C"))
    with open(os.path.join(os.environ["AUTOCUE_WORKSPACE"], "keys.json"), "w") as f:
        json.dump(log, f)
""")


def test_tui_mode_types_the_prompt_once_ready_and_enter_as_its_own_write_after_the_key_gap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "agents" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "faketui").write_text(f"#!{sys.executable}\n{FAKE_TUI}")
    (bin_dir / "faketui").chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    prof = tmp_path / "agents.toml"
    prof.write_text('[agents.faketui]\nbinary = "faketui"\nprint_args = []\ntui_args = []\nready = "READY>"\n'
                    "key_gap = 0.25\nquit_input = '<ctrl-c><ctrl-c>'\n")
    path = scenario(tmp_path, """
        name: tui
        initialPrompt: hello there
        timeline:
          - userInputs: [[0, "<quit>"]]
        expect: {exitCode: 0}
        """)
    r = one(path, agent="faketui", agents_files=(str(prof),), keep=True)
    assert r.passed, (r.failures, r.last_screen)
    assert r.workspace is not None
    log = json.loads((Path(r.workspace) / "keys.json").read_text())
    # nothing typed before READY> was lost; <quit> typed the profile's quit input
    assert [x[1] for x in log] == ["hello there", "\r", "\x03", "\x03"]
    assert log[1][0] - log[0][0] >= 0.25  # Enter waited the profile's key_gap after the text
    assert "READY> hello there" in r.last_screen


def test_the_command_line_prints_the_diagnostics_and_the_last_screen(
        tmp_path: Path, fake_cli: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from autocue.cli.main import main

    prof = tmp_path / "agents.toml"
    prof.write_text(TOML)
    path = scenario(tmp_path, SCENARIO)
    code = main(["run", str(path), "--agent", "fakecli", "--agents-file", str(prof), "--agent-arg=--title-first",
                 "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 1
    assert "  suspected side request: #1 declared no tools" in out
    screen = out.split("  last screen:\n", 1)[1]
    assert screen.startswith("    | ") and "| urllib.error.HTTPError: HTTP Error 400" in screen
