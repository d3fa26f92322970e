"""The ``autocue`` dispatcher: near misses of a command, ``--help``, ``python -m autocue``, the guard.

A first word that is a near miss of a sub-command is refused before anything reaches the
model (proved against a real loopback model server that counts requests); every command's
``--help`` is plain text, without reST markup; an unexpected exception is one line.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import chat_text, run_cli, setup_home
from provider_wire_server import WireServer

from autocue import __version__
from autocue.cli import main as cli_main
from autocue.cli.args import one_line, plain_text
from autocue.cli.checks import TOOLS


@pytest.mark.parametrize(("word", "command"), [
    ("srve", "serve"), ("sever", "serve"), ("server", "serve"), ("lop", "loop"), ("loops", "loop"),
    ("scenaro", "scenario"), ("scenarios", "scenario"), ("reprot", "report"), ("repo", "report"), ("repl", "replay"),
    ("verify", "verify-install"), ("verifyinstall", "verify-install"), ("tst", "check"), ("tests", "check"),
    ("test", "check"), ("chek", "check"), ("checks", "check"),
    ("demos", "demo"), ("Serve", "serve"), ("mcps", "mcp"),
    # within edit distance 2 (a swap of two neighbours is one edit)
    ("veiw", "view"), ("vew", "view"), ("wiev", "view"), ("sreve", "serve"), ("recrod", "record"), ("rn", "run"),
    ("rnu", "run"), ("look", "loop"), ("agnets", "agents"), ("inti", "init"), ("dif", "diff"),
])
def test_near_misses_of_a_command(word: str, command: str) -> None:
    assert cli_main.near_command(word) == command


@pytest.mark.parametrize("word", ["fix", "explain", "hello", "write", "summarize", "x.yaml", "serve.yaml",
                                  "-p", "--model", "fix the bug in serve", "what", "add", "te", "do", "up", "yes",
                                  "frobnicate", "look at main.py"])
def test_prompts_are_not_near_misses(word: str) -> None:
    assert cli_main.near_command(word) is None


@pytest.mark.slow
def test_a_near_miss_is_refused_before_anything_reaches_the_model(server: WireServer, tmp_path: Path) -> None:
    env = setup_home(tmp_path, server)
    server.push(chat_text("one"), chat_text("two"))
    r = run_cli(["srve", "x.yaml"], env, tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == ("autocue: 'srve' is not a command; did you mean 'autocue serve'? "
                                "(to send it to the model as a prompt: autocue -- srve x.yaml)")
    assert server.requests == []
    # the way out the message gives does reach the model
    r = run_cli(["--", "srve", "x.yaml"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(server.requests) == 2 and "two" in r.stdout


@pytest.mark.slow
def test_help_lists_every_command_with_one_line_each(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "autocue", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for name, (_, help_text) in cli_main.SUBCOMMANDS.items():
        assert re.search(rf"^  {re.escape(name)} +{re.escape(help_text)}$", r.stdout, re.MULTILINE), name
    assert "--model MODEL" in r.stdout  # and the agent's own options


@pytest.mark.slow
def test_python_m_autocue_is_the_autocue_command() -> None:
    r = subprocess.run([sys.executable, "-m", "autocue", "--version"], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout.strip()) == (0, f"autocue {__version__}")
    r = subprocess.run([sys.executable, "-m", "autocue", "scenario", "schema", "--indent", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("{")


HELP_ARGVS = [[], *([c] for c in cli_main.SUBCOMMANDS), *(["scenario", c] for c in ("schema", "check", "run")),
              *(["check", t] for t in TOOLS)]
REST_MARKUP = re.compile(r"``|:[a-z]+(:[a-z]+)?:`|^\s*::\s*$", re.MULTILINE)


@pytest.mark.parametrize("argv", HELP_ARGVS, ids=[" ".join(a) or "autocue" for a in HELP_ARGVS])
def test_help_is_plain_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli_main.main([*argv, "--help"])
    assert done.value.code in (0, None)
    out = capsys.readouterr().out
    assert out.startswith("usage: autocue")
    assert not REST_MARKUP.search(out), REST_MARKUP.findall(out)


def test_plain_text_and_one_line() -> None:
    doc = "Run ``autocue serve`` (see :class:`~autocue.mockllm.MockLLMServer` and :func:`autocue.x`)::\n\n    ::\n"
    assert plain_text(doc) == "Run autocue serve (see MockLLMServer and autocue.x):\n\n"
    assert one_line("f.jsonl:3: corrupt line (x)\n  Only the last line may be torn.\n") == (
        "f.jsonl:3: corrupt line (x); Only the last line may be torn.")
    assert one_line("a.\n  b") == "a. b"


@pytest.fixture
def boom_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "boom_cmd.py").write_text(textwrap.dedent("""
        def main(argv):
            if argv == ["interrupt"]:
                raise KeyboardInterrupt
            raise RuntimeError("the widget\\n  broke")
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli_main.SUBCOMMANDS, "boom", ("boom_cmd", "fails"))
    monkeypatch.delenv("AUTOCUE_DEBUG", raising=False)


@pytest.mark.usefixtures("boom_command")
def test_an_unexpected_error_is_one_line_with_the_debug_hint(capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli_main.main(["boom"]) == 1
    assert capsys.readouterr().err == ("autocue: unexpected error: RuntimeError: the widget; broke "
                                       "(rerun with AUTOCUE_DEBUG=1 for the traceback)\n")
    assert cli_main.main(["boom", "interrupt"]) == 130
    monkeypatch.setenv("AUTOCUE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="the widget"):
        cli_main.main(["boom"])
