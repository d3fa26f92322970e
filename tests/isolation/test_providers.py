"""Providers come from one registry: the built-ins and ``autocue.sandboxes`` entry points, fed through the
same ``register``. A toy provider installed as a real entry point (a ``.dist-info`` on ``sys.path``) runs
a scenario through ``autocue run --sandbox toy``; docker and podman build their command against the CLI
and skip their live run with the reason when no engine answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autocue.isolation import (
    ENTRY_POINT_GROUP,
    SandboxSpec,
    SandboxUnavailableError,
    UnknownSandboxError,
    find,
    providers,
    registry,
)
from autocue.runner import run_scenarios

TOY = '''\
import os

from autocue.isolation import Sandbox, Wrapped


class ToySandbox(Sandbox):
    def command(self, argv, env, cwd, *, terminal):
        with open(os.environ["TOY_LOG"], "a") as f:
            f.write(f"{self.spec.workspace} terminal={terminal}\\n")
        return Wrapped(["sh", "-c", 'echo ran >> "$0"; exec "$@"', os.environ["TOY_LOG"], *argv], dict(env), cwd)


class ToyProvider:
    name = "toy"

    def unavailable(self):
        return None

    def start(self, spec):
        return ToySandbox(spec)
'''

SCENARIO = """\
name: toy-sandboxed
agent: mock
initialPrompt: hello
timeline:
  - llmResponse:
      - assistant: [[0, "Hello from inside the toy sandbox."]]
  - assert:
      text: {contains: ["Hello from inside the toy sandbox."]}
"""


@pytest.fixture
def toy_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution ``autocue-toy-sandbox`` with an ``autocue.sandboxes`` entry point, found on ``sys.path``."""
    site = tmp_path / "site"
    (site / "autocue_toy_sandbox.dist-info").mkdir(parents=True)
    (site / "autocue_toy_sandbox.py").write_text(TOY, encoding="utf-8")
    info = site / "autocue_toy_sandbox.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: autocue-toy-sandbox\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = autocue_toy_sandbox:ToyProvider\n",
                                           encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_loaded", False)
    yield site
    registry.unregister("toy")


def test_a_provider_from_an_entry_point_runs_a_scenario(toy_entry_point: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "toy.log"
    monkeypatch.setenv("TOY_LOG", str(log))
    assert "toy" in providers()
    scenario = tmp_path / "scenarios" / "toy.yaml"
    scenario.parent.mkdir()
    scenario.write_text(SCENARIO, encoding="utf-8")
    report = run_scenarios(scenario, sandbox="toy", out=tmp_path / "out")
    result = report.scenarios[0]
    assert result.passed, [f.line() for f in result.failures]
    assert result.sandbox == "toy"
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("/work terminal=True") and lines[1] == "ran"  # asked, then ran the program


def test_builtins_are_registered_and_an_unknown_name_is_one_clear_line() -> None:
    assert {"none", "bwrap", "docker", "podman"} <= set(providers())
    with pytest.raises(UnknownSandboxError, match=r"--sandbox 'bwarp': no such sandbox provider; did you mean 'bwrap'"):
        find("bwarp")


def test_autocue_run_names_a_bad_sandbox_in_one_line(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "autocue", "run", "--sandbox", "nope", str(scenario)],
                       capture_output=True, text=True, check=False)
    assert r.returncode != 0
    assert r.stderr.strip().count("\n") == 0 and "--sandbox 'nope': no such sandbox provider" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("engine", ["docker", "podman"])
def test_a_container_sandbox_has_no_network_and_mounts_the_run(engine: str, tmp_path: Path) -> None:
    provider = find(engine)
    ws = tmp_path / "work"
    ws.mkdir()
    spec = SandboxSpec(ws, tmp_path, mock_port=4321, image="python:3.12-slim")
    if provider.unavailable() is None:
        box = provider.start(spec)
    else:  # the command is still built against the CLI (no engine needed for that)
        from autocue.isolation.providers import _Container

        box = _Container(spec, engine, "python:3.12-slim")
    try:
        w = box.command(["agent", "--flag"], {"PATH": "/host/bin", "HOME": str(tmp_path / "home"), "K": "v"}, ws,
                        terminal=True)
    finally:
        box.close()
    argv = w.argv
    assert argv[:2] == [engine, "run"] and "-t" in argv and argv[argv.index("--network") + 1] == "none"
    assert f"{ws}:{ws}" in argv and "python:3.12-slim" in argv
    assert argv[-3:] == ["--", "agent", "--flag"]
    assert argv[argv.index("--port") + 1] == "4321"
    with pytest.raises(SandboxUnavailableError, match="needs an image"):
        provider.start(SandboxSpec(ws, tmp_path))


@pytest.mark.parametrize("engine", ["docker", "podman"])
def test_a_container_sandbox_runs_the_probe(engine: str, tmp_path: Path) -> None:
    why = find(engine).unavailable()
    if why is not None:
        pytest.skip(f"--sandbox {engine}: {why}")
    pytest.skip(f"--sandbox {engine}: an engine answers, but no image with python3 is known to be pulled here")
