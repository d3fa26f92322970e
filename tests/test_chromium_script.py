"""``scripts/_chromium.sh`` (``ensure_chromium``, run by ``scripts/test.sh``): it says what it installs
with apt and why, waits for the dpkg lock, and reports what is installed afterwards, never "could not
install" when chromium is there. Run with a fake ``apt-get`` and ``id`` first on PATH."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "_chromium.sh"


def ensure(tmp_path: Path, *, apt_exit: int, installs: bool, uid: int = 0, present: bool = False) -> tuple[str, str]:
    """Run ``ensure_chromium``; returns (its output, the apt-get calls one per line)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    chromium = tmp_path / "chromium"
    if present:
        chromium.write_text("#!/bin/sh\n")
        chromium.chmod(0o755)
    calls = tmp_path / "apt-calls"
    make = f"printf '#!/bin/sh\\n' > {chromium}; chmod 755 {chromium}; " if installs else ""
    (bin_dir / "apt-get").write_text(f"#!/bin/sh\necho \"$*\" >> {calls}\n"
                                     f"case \"$*\" in *install*) {make}echo 'E: Could not get lock' >&2;; esac\n"
                                     f"exit {apt_exit}\n")
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "AUTOCUE_CHROMIUM": str(chromium)}
    env.pop("AUTOCUE_NO_CHROMIUM", None)
    r = subprocess.run(["bash", "-c", f"set -euo pipefail; source {SCRIPT}; ensure_chromium"], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout, calls.read_text() if calls.exists() else ""


WHAT = ("== chromium: apt-get install chromium: Debian's Chromium with its dependencies (about 150 packages), "
        "for the browser tests of tests/view (AUTOCUE_NO_CHROMIUM=1 skips this)\n")


@pytest.mark.parametrize("apt_exit", [0, 100])
def test_installed_chromium_is_reported_installed_whatever_apt_get_exited_with(tmp_path: Path, apt_exit: int) -> None:
    out, calls = ensure(tmp_path, apt_exit=apt_exit, installs=True)
    assert out == WHAT + f"   installed: {tmp_path / 'chromium'}\n"
    assert calls.splitlines()[0] == "-o DPkg::Lock::Timeout=600 install -y -qq chromium"  # waits for the lock


def test_a_failed_install_says_so_with_apt_s_last_words(tmp_path: Path) -> None:
    out, calls = ensure(tmp_path, apt_exit=100, installs=False)
    assert out == WHAT + ("   could not install chromium: the browser tests of tests/view will be skipped; "
                          "apt-get said:\n     E: Could not get lock\n")
    assert calls.splitlines()[1] == "-o DPkg::Lock::Timeout=600 update -qq"


def test_nothing_is_installed_when_chromium_is_there_or_we_are_not_root(tmp_path: Path) -> None:
    out, calls = ensure(tmp_path, apt_exit=0, installs=True, present=True)
    assert out == f"== chromium: {tmp_path / 'chromium'} (for the browser tests of tests/view)\n" and calls == ""
    (tmp_path / "chromium").unlink()
    out, calls = ensure(tmp_path, apt_exit=0, installs=True, uid=1000)
    assert "installing it takes root and apt-get: the browser tests of tests/view will be skipped" in out
    assert "install Debian's chromium package" in out
    assert calls == ""


def test_the_test_script_uses_it() -> None:
    text = (ROOT / "scripts" / "test.sh").read_text()
    assert 'source "$ROOT/scripts/_chromium.sh"\nensure_chromium\nensure_bubblewrap\n' in text
    assert "apt-get" not in text
