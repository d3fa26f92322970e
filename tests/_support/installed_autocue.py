"""autocue as a user installs it, for the tests: its wheel, a fresh venv with it, a local package index.

* ``build_wheel(out)``: ``uv build --wheel`` of this checkout (no isolation: hatchling is a dev dependency).
* ``make_venv(dest, wheel=..., requirements=...)``: ``python -m venv`` (pip included, as a user
  has it) and an offline ``uv pip install`` from a wheelhouse repacked from the running
  environment (no download); with ``wheel=None`` only the requirements go in.
* ``LocalIndex(wheels)``: a PEP 503 simple index of those wheels served over HTTP on loopback,
  counting the requests it answered.
* ``user_env(...)``: the environment of a user whose pip is configured for one index only.
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from autocue.sandbox.commands import find_uv, venv_python
from autocue.sandbox.wheels import Req, canonical, ensure_wheelhouse, parse_requirements, wheel_metadata

ROOT = Path(__file__).resolve().parents[2]
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _uv() -> str:
    uv = find_uv()
    assert uv is not None, "uv is a dev dependency (pip install -e '.[dev]')"
    return uv


def build_wheel(out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([_uv(), "build", "--wheel", "--no-build-isolation", "--no-config", "--out-dir", str(out_dir),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    [wheel] = sorted(out_dir.glob("autocue-*.whl"))
    return wheel


def wheelhouse(cache: Path, roots: Iterable[Req]) -> Path:
    house = ensure_wheelhouse(cache, roots, exclude=["autocue"])
    assert not house.skipped, house.skipped
    return house.path


def make_venv(dest: Path, *, wheel: Path | None, requirements: list[str], cache: Path) -> Path:
    """A fresh venv (with pip) holding ``wheel`` or, without one, only ``requirements``; returns its python."""
    uv = _uv()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    subprocess.run([sys.executable, "-m", "venv", str(dest)],  # pip comes from ensurepip: no download
                   check=True, capture_output=True, env=env, timeout=120)
    house = wheelhouse(cache, parse_requirements(requirements))
    args = [uv, "pip", "install", "-q", "--no-config", "--offline", "--no-index", "--find-links", str(house),
            "--python", str(venv_python(dest))]
    args += [str(wheel)] if wheel is not None else requirements
    subprocess.run(args, check=True, capture_output=True, env=env, timeout=300)
    return venv_python(dest)


def autocue_requirements(wheel: Path) -> list[str]:
    return [r.text for r in parse_requirements(wheel_metadata(wheel)[2])]


class LocalIndex:
    """A PEP 503 simple index of ``wheels`` on ``http://127.0.0.1:<port>/simple/``."""

    def __init__(self, wheels: Iterable[Path]) -> None:
        self.files = {w.name: w for w in wheels}
        self.requests: list[str] = []
        by_project: dict[str, list[str]] = {}
        for name in self.files:
            by_project.setdefault(canonical(name.split("-")[0]), []).append(name)
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                parts = [p for p in self.path.split("?")[0].split("/") if p]
                body: bytes | None = None
                ctype = "text/html"
                if parts == ["simple"]:
                    body = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in by_project).encode()
                elif len(parts) == 2 and parts[0] == "simple" and canonical(parts[1]) in by_project:
                    body = "".join(f'<a href="/files/{html.escape(n)}">{html.escape(n)}</a>\n'
                                   for n in by_project[canonical(parts[1])]).encode()
                elif len(parts) == 2 and parts[0] == "files" and parts[1] in index.files:
                    body, ctype = index.files[parts[1]].read_bytes(), "application/octet-stream"
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LocalIndex:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def user_env(
    venv_python: Path, *, index_url: str, cache: Path, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A user's environment: the venv's bin first on PATH, pip configured for ``index_url`` only (no
    config files, no find-links, no pip cache), loopback reached without a proxy."""
    env = {k: v for k, v in os.environ.items()
           if k not in (*_PROXIES, "VIRTUAL_ENV", "PYTHONPATH") and not k.startswith(("PIP_", "UV_"))}
    env.update({
        "PATH": os.pathsep.join([str(venv_python.parent), "/usr/local/bin", "/usr/bin", "/bin"]),  # no dev uv
        "PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": index_url, "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        "AUTOCUE_CACHE_DIR": str(cache), "UV_NO_CONFIG": "1",
    })
    if extra:
        env.update(extra)
    return env
