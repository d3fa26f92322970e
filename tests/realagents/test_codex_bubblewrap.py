"""Codex behaves the same whether or not the machine has bubblewrap (``bwrap``).

Codex 0.169 runs every tool call through bubblewrap: a ``bwrap`` on ``PATH`` (not under ``/tmp``,
which its sandbox can write) when it has ``--as-pid-1`` and ``--perms``, else the one it bundles.
A system bubblewrap older than 0.9.0 (no ``--argv0``: Debian 12, Ubuntu 22.04) makes it start its
sandbox helper by name, ``codex-linux-sandbox``, from a ``PATH`` entry it creates under
``CODEX_HOME/tmp`` — and it refuses to create it when ``CODEX_HOME`` is in the temp dir, where
every run's private home is. Every tool call then failed (``bwrap: execvp codex-linux-sandbox: No
such file or directory``) while Codex printed the scripted text and exited 0.

The "with bubblewrap" condition is made on any machine with Codex installed: a ``bwrap`` of our
own on ``PATH`` that is Codex's bundled bubblewrap with ``--argv0`` taken out of its ``--help``
(what Codex checks), i.e. bubblewrap 0.8.0 as Codex sees it. It logs each call, so a test
asserts that Codex used it. ``test_with_the_systems_bubblewrap`` runs when a real one is
installed (``apt-get install bubblewrap``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from autocue.runner import ScenarioResult, run_scenarios
from autocue.runner.agents import BUILTIN, find_binary

PRINT = """\
name: codex-writes-hello
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
      - writeFile: {path: hello.txt, content: "hello from codex\\n"}
  - assert:
      fs: {exists: [hello.txt]}
  - llmResponse:
      - assistant: [[0, "Done: hello.txt is written."]]
expect: {exitCode: 0}
"""

TUI = """\
name: codex-tui-writes-hello
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
      - writeFile: {path: hello.txt, content: "hello from codex\\n"}
  - llmResponse:
      - assistant: [[0, "Done: hello.txt is written."]]
  - assert:
      fs: {exists: [hello.txt]}
      text: {contains: ["Done: hello.txt is written."]}
  - userInputs: [[0, "<quit>"]]
expect: {exitCode: 0}
"""

NO_ASSERT = """\
name: codex-writes-without-a-check
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing hello.txt."]]
      - writeFile: {path: hello.txt, content: "hello from codex\\n"}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""

FAKE_BWRAP = """\
#!/bin/sh
# bubblewrap as Codex sees version 0.8.0 (Debian 12): no --argv0 in --help.
printf '%s\\n' "$*" | head -c 200 >> {log}; echo >> {log}
for a in "$@"; do
  case "$a" in
    --help) {real} --help 2>&1 | grep -v -e '--argv0'; exit 0;;
    --argv0) echo "bwrap: Unknown option --argv0" >&2; exit 1;;
    --new-session) {broken};;
    --) break;;
  esac
done
exec {real} "$@"
"""

BROKEN = 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1'
"""What bubblewrap says where user namespaces are not allowed (Ubuntu 24.04's AppArmor default)."""


def codex_or_skip() -> str:
    found = find_binary(BUILTIN["codex"])
    if found is None:
        pytest.skip("codex (npm @openai/codex) is not installed in $AUTOCUE_AGENTS_DIR/bin or on PATH: run "
                    "`autocue agents install codex` or `bash scripts/real-agents.sh`")
    return found


def bundled_bwrap(codex: str) -> Path:
    """The bubblewrap the npm package of Codex ships (``@openai/codex-<platform>/vendor/*/codex-resources``)."""
    scope = Path(os.path.realpath(codex)).parents[2]  # node_modules/@openai/codex/bin/codex.js -> @openai
    found = sorted(scope.glob("codex-*/vendor/*/codex-resources/bwrap"))
    if not found:
        pytest.skip(f"no bubblewrap bundled with codex under {scope}")
    return found[0]


@pytest.fixture
def fake_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """``(script, log)``: our ``bwrap`` first on ``PATH``, in a dir outside ``/tmp``."""
    real = bundled_bwrap(codex_or_skip())
    base = Path("/var/tmp")
    if not os.access(base, os.W_OK):
        pytest.skip("/var/tmp is not writable: the fake bwrap must live outside /tmp, which Codex skips")
    d = Path(tempfile.mkdtemp(prefix="autocue-bwrap-", dir=base))
    try:
        script, log = d / "bwrap", d / "calls.log"
        script.write_text(FAKE_BWRAP.format(real=real, log=log, broken=":"))
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{d}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
        yield script, log
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run(tmp_path: Path, body: str) -> ScenarioResult:
    path = tmp_path / "scenario.yaml"
    path.write_text(textwrap.dedent(body))
    report = run_scenarios(path, agent="codex", out=tmp_path / "runs", timeout=90, keep=True)
    [r] = report.scenarios
    return r


def check_writes(tmp_path: Path, body: str) -> None:
    r = run(tmp_path, body)
    lines = [f.line() for f in r.failures] + r.diagnostics + ["last screen:", r.last_screen]
    assert r.passed, "\n".join(lines)
    assert r.workspace is not None
    assert (Path(r.workspace) / "hello.txt").read_text() == "hello from codex\n"


@pytest.mark.slow
@pytest.mark.parametrize("body", [PRINT, TUI], ids=["print", "tui"])
def test_codex_writes_the_file_through_a_bubblewrap_without_argv0(body: str, tmp_path: Path,
                                                                  fake_bwrap: tuple[Path, Path]) -> None:
    check_writes(tmp_path, body)
    calls = fake_bwrap[1].read_text()
    assert "--new-session" in calls, f"codex did not run its tool call through {fake_bwrap[0]}:\n{calls}"


@pytest.mark.slow
def test_a_tool_call_codex_could_not_run_fails_the_run_and_names_the_cause(tmp_path: Path,
                                                                           fake_bwrap: tuple[Path, Path]) -> None:
    """No assert and no expected exit code: the file is not written and Codex exits 0, yet the run fails,
    on Codex's own record of the call."""
    script, _ = fake_bwrap
    script.write_text(script.read_text().replace("--new-session) :;;", f"--new-session) {BROKEN};;"))
    r = run(tmp_path, NO_ASSERT)
    assert r.workspace is not None and not (Path(r.workspace) / "hello.txt").exists()
    assert r.exit_code == 0
    assert r.failures, "the run passed although codex could not run its tool call"
    [f] = r.failures
    assert f.kind == "tool_result" and f.position.endswith("scenario.yaml:1:1"), f.line()
    assert f.message.startswith("codex could not run a tool call, its sandbox failed on this machine: "
                                "exec_command `printf "), f.message
    assert "exit 1: bwrap: setting up uid map: Permission denied" in f.message
    assert "'Sandboxes and bubblewrap' in docs/agents.md" in f.message
    assert any(d.startswith("codex reported a failed tool call: exec_command `printf ")
               and d.endswith("bwrap: setting up uid map: Permission denied") for d in r.diagnostics), r.diagnostics


def system_bwrap() -> str | None:
    """A bubblewrap Codex would take: on PATH, not under /tmp."""
    found = shutil.which("bwrap")
    return found if found and not os.path.realpath(found).startswith("/tmp/") else None


@pytest.mark.slow
@pytest.mark.skipif(system_bwrap() is None, reason="bubblewrap is not installed (apt-get install bubblewrap)")
@pytest.mark.parametrize("body", [PRINT, TUI], ids=["print", "tui"])
def test_with_the_systems_bubblewrap(body: str, tmp_path: Path) -> None:
    codex_or_skip()
    check_writes(tmp_path, body)
