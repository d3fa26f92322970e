"""The repository is self-contained: no test, benchmark, doc, example or script reaches outside it.

A clone with nothing beside it must run the whole suite, so nothing may name the folder that
sits next to the checkout on a developer's machine, another absolute path of
a particular machine, or an environment variable that points at such data.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each pattern is a way a file could depend on a folder outside the repository.
SHARED = "sha" + "red"  # the folder beside a developer's checkout (spelt in pieces: this file must not name it)
OUTSIDE = {
    "the folder beside the checkout": re.compile(r"\.\./" + SHARED + r"\b"),
    "a path joined with that folder": re.compile(r"""/\s*["']""" + SHARED + r"""["']"""),
    "/work/ absolute path": re.compile(r"""["'(]/wo""" + r"""rk/(?:""" + SHARED + r"""|main|wt)"""),
    "an absolute path of this machine": re.compile(
        r"""(?:Path|open)\(\s*["'](?:/ro""" + r"""ot|/home/|/tmp/|/wo""" + r"""rk/)"""),
    "a conformance-dir variable": re.compile("AUTOCUE_" + "CONFORMANCE_DIR"),
}
SCANNED = (".py", ".md", ".sh", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt")


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    names = [n for n in out.decode().split("\0") if n]
    return [ROOT / n for n in names if n.endswith(SCANNED) and not n.startswith("tests/fixtures/")]


def offending_lines(text: str) -> list[tuple[int, str]]:
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in OUTSIDE.items():
            if pattern.search(line):
                hits.append((number, what))
                break
    return hits


def test_the_scan_finds_each_kind_of_reference() -> None:
    # built from pieces, so this file itself holds none of the references it looks for
    shared, work, conf = SHARED, "/wo" + "rk/", "AUTOCUE_" + "CONFORMANCE_DIR"
    planted = "\n".join([
        f'p = ROOT.parent / "{shared}" / "conformance"',
        f"see ../{shared}/conformance",
        f'x = Path("{work}{shared}/conformance/ralph")',
        'y = Path("/ro' + 'ot/.cache/thing")',
        f'os.environ["{conf}"]',
        'fine = Path("tests/fixtures/conformance")',
    ])
    assert [n for n, _ in offending_lines(planted)] == [1, 2, 3, 4, 5]


def test_no_file_reaches_outside_the_repository() -> None:
    files = tracked_files()
    assert len(files) > 100, "git ls-files found too few files: is this a checkout?"
    found = [
        f"{path.relative_to(ROOT)}:{number}: {what}"
        for path in files
        for number, what in offending_lines(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, "files depend on folders outside the repository:\n" + "\n".join(found)


@pytest.mark.parametrize("folder", ["pi-sessions", "harbor", "ralph"])
def test_conformance_copies_are_in_the_repository(folder: str) -> None:
    from conformance import CONFORMANCE

    files = [p for p in (CONFORMANCE / folder).iterdir() if p.suffix in (".jsonl", ".yaml", ".yml")]
    assert files, f"tests/fixtures/conformance/{folder} is empty"
    assert (CONFORMANCE / folder / ("README.md" if folder == "pi-sessions" else "SOURCES.md")).is_file()
