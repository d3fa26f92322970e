"""``autocue simulate`` as a real subprocess: the URL line, the API behind it, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from autocue.simulate import event_json_schema
from autocue.simulate.client import iter_events

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "simulate" / "npm_test.yaml"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue.cli.main", "simulate", *args], capture_output=True,
                          text=True, timeout=60)


@pytest.mark.slow
def test_serves_scenarios_and_prints_the_url_first(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "simulate", str(FIXTURE.parent),
                             "--speed", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("autocue simulation server: http://127.0.0.1:")
        url = first.rsplit(" ", 1)[1]
        sid = httpx2.post(url + "/api/v1/sessions", json={"scenario": "npm_test"}).json()["id"]
        events = list(iter_events(f"{url}/api/v1/sessions/{sid}"))
        assert events[0]["type"] == "session.start" and events[-1] == {**events[-1], "type": "session.end",
                                                                       "status": "merged"}
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_session_bounds_and_origin_checks_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "slow.yaml").write_text("name: slow\ntimeline:\n  - assistant: [[600000, thinking]]\n"
                                        "  - complete: true\n")
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "simulate", str(tmp_path / "slow.yaml"),
                             "--max-sessions", "1", "--session-ttl", "60"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip().rsplit(" ", 1)[1]
        proc.stdout.readline()
        assert "-H 'Content-Type: application/json'" in proc.stdout.readline()  # the curl line works as printed
        sessions = url + "/api/v1/sessions"
        assert httpx2.post(sessions, json={}, headers={"Origin": "https://evil.example"}).status_code == 403
        assert httpx2.post(sessions, json={}).status_code == 201
        r = httpx2.post(sessions, json={})
        assert r.status_code == 429 and "--max-sessions 1" in r.json()["error"]
    finally:
        proc.terminate()
        proc.wait(10)


def test_schema_subcommand_prints_the_versioned_schema() -> None:
    r = cli("schema")
    assert r.returncode == 0
    assert json.loads(r.stdout) == event_json_schema()


@pytest.mark.parametrize(("args", "message"), [
    (["missing.yaml"], "autocue simulate: missing.yaml: no such scenario file or directory"),
    ([str(FIXTURE), "--loop", "--speed", "0"], "autocue simulate: --loop needs --speed above 0"),
    ([str(FIXTURE), "--speed", "-1"], "autocue simulate: --speed must be 0 or more (got -1.0)"),
    ([str(FIXTURE), str(FIXTURE)], "scenario names must be unique"),
])
def test_bad_arguments_give_one_error_line(args: list[str], message: str) -> None:
    r = cli(*args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_broken_scenario_names_its_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ntimeline:\n  - advanceMs: soon\n")
    r = cli(str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{bad}:3:" in r.stderr
