"""The pytest plugin writes viewer pages: for a failing test always, for every test with --autocue-html."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from view_helpers import page_data

TESTS = '''
from autocue.testing import call, say, when

greet = {"greet": lambda p: f"hello {p['name']}"}


def test_fails(autocue_session):
    t = autocue_session(mock_tools=greet)
    t.run_sync(when("Greet Ada", [call("greet", {"name": "Ada"}), say("Greeted Ada.")]))
    assert t.events.tool_results_for("greet")[0].text == "bye Ada"


def test_passes(autocue_session):
    t = autocue_session(mock_tools=greet)
    t.run_sync(when("Greet Bob", [say("Hi Bob.")]))
'''


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_sample.py").write_text(TESTS)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", "--rootdir", str(folder), str(folder / "test_sample.py"), *args],
                          capture_output=True, text=True, timeout=120, cwd=folder)


@pytest.mark.slow
def test_a_failing_test_gets_a_page_and_its_path_is_printed(tmp_path: Path) -> None:
    r = run_pytest(tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    page = tmp_path / ".autocue" / "view" / "test_sample.py__test_fails.html"
    assert "autocue view" in r.stdout and str(page) in r.stdout
    assert sorted(p.name for p in page.parent.iterdir()) == [page.name]  # the passing test got none
    data = page_data(page.read_text())
    assert data["title"] == "test_sample.py::test_fails"
    texts = [(e["type"], e.get("text") or e.get("toolName") or e.get("result")) for e in data["events"]]
    assert ("user", "Greet Ada") in texts and ("tool.start", "greet") in texts
    assert [e["result"] for e in data["events"] if e["type"] == "tool.end"] == ["hello Ada"]


@pytest.mark.slow
def test_autocue_html_writes_every_test(tmp_path: Path) -> None:
    out = tmp_path / "pages"
    r = run_pytest(tmp_path, "--autocue-html", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["test_sample.py__test_fails.html",
                                                     "test_sample.py__test_passes.html"]
    assert not (tmp_path / ".autocue").exists()
