"""Wheels for the sandbox: the package's own, the running autocue's, and a local wheelhouse.

* ``build_package_wheel``: builds the package with ``uv build`` (or ``python -m build``). When
  its build backend (``[build-system] requires``) is installed in the running environment the
  build runs without isolation, so it needs no network; otherwise an isolated build fetches the
  build requirements from the configured index (``offline=False``, or by default when that index
  is reachable) or runs offline (``offline=True``: uv then needs its cache).
* ``running_autocue_wheel``: the autocue that runs this check, as a wheel. An editable install
  (a source checkout) is built once per source state and cached under
  ``<cache>/autocue/<hash>/``; an ordinary install (from a wheel) is reused: repacked from its
  installed files, never rebuilt.
* ``ensure_wheelhouse``: the dependency closure of autocue and of the package, repacked from
  the running environment's installed distributions into ``<cache>/wheelhouse/`` (each wheel
  written once, atomically). Installs then run with ``--no-index --find-links <wheelhouse>``:
  no index is ever contacted, and a dependency that is not installed here fails fast.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.metadata as md
import importlib.util
import json
import marshal
import os
import re
import shutil
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from autocue.sandbox.commands import run
from autocue.sandbox.problems import Problem, ProblemKind, SandboxStepError

_SKIP_DIST_INFO = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
_SKIP_DIRS = {".git", ".hg", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules", "build", "dist",
              ".mypy_cache", ".ruff_cache", ".pytest_cache", "site-packages"}


def canonical(name: str) -> str:
    """PEP 503 normalized project name."""
    return str(canonicalize_name(name))


# ---------------------------------------------------------------------------- requirements


@dataclass(frozen=True)
class Req:
    name: str
    extras: tuple[str, ...] = ()
    text: str = ""


def parse_requirements(lines: Iterable[str], extras: Iterable[str] = ()) -> list[Req]:
    """Requirements whose markers hold here (for ``extras``); unparsable lines are skipped."""
    wanted = ["", *extras]
    out: list[Req] = []
    for line in lines:
        try:
            r = Requirement(line)
        except InvalidRequirement:
            continue
        if r.marker is not None and not any(r.marker.evaluate({"extra": e}) for e in wanted):
            continue
        out.append(Req(canonical(r.name), tuple(sorted(r.extras)), line))
    return out


def requirement_satisfied(text: str) -> bool:
    """Is requirement ``text`` installed in the running environment (version included when checkable)?"""
    try:
        r = Requirement(text)
    except InvalidRequirement:
        return False
    if r.marker is not None and not r.marker.evaluate():
        return True
    dist = installed(r.name)
    if dist is None:
        return False
    return not r.specifier or r.specifier.contains(dist.version, prereleases=True)


def installed(name: str) -> md.Distribution | None:
    """The distribution ``name`` installed in the running environment, or None."""
    try:
        return md.distribution(name)
    except md.PackageNotFoundError:
        return None


# ---------------------------------------------------------------------------- the package's wheel


def read_pyproject(package_dir: Path) -> dict[str, Any]:
    p = package_dir / "pyproject.toml"
    if not p.is_file():
        if (package_dir / "setup.py").is_file():
            return {}
        raise SandboxStepError(Problem(
            ProblemKind.NOT_A_PACKAGE,
            f"{package_dir} has no pyproject.toml (nor setup.py)",
            "verify_sandbox_install builds the directory as a Python package, like 'pip install DIR' would.",
            "Point it at the directory holding the package's pyproject.toml, or add one with a "
            "[build-system] table and [project.entry-points.\"autocue.extensions\"].",
        ))
    try:
        with p.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SandboxStepError(Problem(
            ProblemKind.BUILD_FAILED, f"{p}: invalid TOML: {e}",
            "The build front-end cannot read pyproject.toml.", f"Fix the TOML syntax in {p}.",
        )) from e


def backend_installed(pyproject: Mapping[str, Any]) -> bool:
    """Are the package's build requirements installed in the running environment?"""
    bs = pyproject.get("build-system") or {}
    requires = bs.get("requires", ["setuptools>=40.8.0"])
    backend = str(bs.get("build-backend") or "setuptools.build_meta:__legacy__")
    top = backend.split(":")[0].split(".")[0]
    if bs.get("backend-path"):
        return False
    try:
        if importlib.util.find_spec(top) is None:
            return False
    except (ImportError, ValueError):
        return False
    return all(requirement_satisfied(str(r)) for r in requires)


def build_package_wheel(
    package_dir: Path, out_dir: Path, *, uv: str | None, offline: bool | None, env: Mapping[str, str],
    timeout: float, notes: list[str] | None = None,
) -> Path:
    """Build ``package_dir``'s wheel into ``out_dir``; raise ``SandboxStepError(BUILD_FAILED)`` on failure.

    Without its build backend installed here the build is isolated and needs the build
    requirements: ``offline=True`` never downloads them; ``offline=False`` fetches them from the
    configured index; ``offline=None`` (auto) fetches them when a configured index or find-links
    location is reachable, else builds offline. A fetch is said in ``notes``.
    """
    pyproject = read_pyproject(package_dir)
    isolated = not backend_installed(pyproject)
    requires = list((pyproject.get("build-system") or {}).get("requires", ["setuptools>=40.8.0"]))
    configured: list[str] = []
    sources: list[str] = []  # where the build requirements may come from
    if isolated and offline is not True:
        from autocue.sandbox.index import configured_sources, reachable

        configured = configured_sources()
        sources = configured if offline is False else [src for src in configured if reachable(src)]
    fetch = isolated and (offline is False or bool(sources))
    if fetch:
        args, run_env = _fetching_build(package_dir, out_dir, uv)
    else:
        args, run_env = _local_build(package_dir, out_dir, uv, isolated=isolated, env=env)
    res = run(args, cwd=package_dir, env=run_env, timeout=timeout)
    wheels = sorted(out_dir.glob("*.whl"))
    if res.ok and wheels:
        if fetch and notes is not None:
            notes.append(f"building {package_dir.name}: its build requirements {requires} are not installed here, "
                         f"so they were fetched from the configured index ({', '.join(sources) or 'the default'}); "
                         "--offline forbids this")
        return wheels[0]
    if isolated and not fetch:
        where = ", ".join(configured)
        why = (f"Its build requirements {requires} are not installed in the running environment, so the build needs "
               "an isolated environment with them, and "
               + ("--offline forbids downloading them." if offline else
                  f"no configured package index is reachable ({where}), so they cannot be downloaded."))
        fix = ("Install the build backend in the environment that runs the check (e.g. pip install "
               f"{' '.join(repr(r) for r in requires)}), "
               + ("or drop --offline (offline=None) to fetch it from the configured index." if offline else
                  "or make the package index reachable (pip config / PIP_INDEX_URL, --find-links)."))
    else:
        why = "The build backend reported an error (see details): the package's build configuration is wrong."
        fix = f"Run the same build yourself ({' '.join(args[:3])} ... {package_dir}) and fix what it reports."
    said = error_summary(res.output)
    raise SandboxStepError(Problem(
        ProblemKind.BUILD_FAILED,
        f"building the wheel of {package_dir} failed (exit {res.returncode})" + (f": {said}" if said else ""),
        why, fix, res.shown(),
    ))


def _local_build(
    package_dir: Path, out_dir: Path, uv: str | None, *, isolated: bool, env: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """A build that downloads nothing: no isolation when the backend is here, else an offline isolated one."""
    run_env = dict(env)
    if uv is not None:
        args = [uv, "build", "--wheel", "--out-dir", str(out_dir), "--python", sys.executable, "--no-config"]
        args.append("--offline" if isolated else "--no-build-isolation")
    elif importlib.util.find_spec("build") is not None:
        args = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out_dir)]
        if not isolated:
            args.append("--no-isolation")
    else:
        args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out_dir)]
        if not isolated:
            args.append("--no-build-isolation")
    if isolated:
        run_env["PIP_NO_INDEX"] = "1"
        run_env["UV_OFFLINE"] = "1"
    args.append(str(package_dir))
    return args, run_env


def _fetching_build(package_dir: Path, out_dir: Path, uv: str | None) -> tuple[list[str], dict[str, str]]:
    """An isolated build that installs the build requirements from the index configured here (pip's
    configuration when pip is installed, else uv's)."""
    from autocue.sandbox.index import index_env, pip_available

    run_env = index_env()
    if pip_available() or uv is None:
        args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out_dir), str(package_dir)]
    else:
        args = [uv, "build", "--wheel", "--out-dir", str(out_dir), "--python", sys.executable, str(package_dir)]
    return args, run_env


def error_summary(output: str, limit: int = 3) -> str:
    """The backend's exception line if there is one, else the last few error lines (one-line messages)."""
    exc = [ln.strip() for ln in output.splitlines() if re.match(r"\s*[A-Za-z_.]*(Error|Exception): ", ln)]
    if exc:
        return exc[-1][:600]
    hits = [ln.strip() for ln in output.splitlines()
            if re.search(r"(?i)error\b|\bcause:|exception\b", ln) and "Traceback" not in ln]
    return " | ".join(hits[-limit:])[:600]


def wheel_metadata(wheel: Path) -> tuple[str, str, list[str], list[str]]:
    """``(name, version, Requires-Dist lines, top-level names in the wheel)`` of a wheel file."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta_name = next((n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA")), None)
        if meta_name is None:
            raise SandboxStepError(Problem(
                ProblemKind.BUILD_FAILED, f"{wheel.name} has no .dist-info/METADATA",
                "The build produced an invalid wheel.", "Check the build backend and its configuration.",
            ))
        text = z.read(meta_name).decode("utf-8", "replace")
    msg = _parse_metadata(text)
    tops = sorted({n.split("/")[0].removesuffix(".py") for n in names if not n.split("/")[0].endswith((
        ".dist-info", ".data"))})
    return msg["name"][0], msg["version"][0], msg.get("requires-dist", []), tops


def _parse_metadata(text: str) -> dict[str, list[str]]:
    from email.parser import HeaderParser

    parsed = HeaderParser().parsestr(text)
    out: dict[str, list[str]] = {}
    for k, v in parsed.items():
        out.setdefault(k.lower(), []).append(str(v))
    out.setdefault("name", ["unknown"])
    out.setdefault("version", ["0"])
    return out


# ---------------------------------------------------------------------------- the running autocue


def _source_root(dist: md.Distribution) -> Path | None:
    """The source directory of an editable install (from ``direct_url.json``), if it is one."""
    raw = dist.read_text("direct_url.json")
    if not raw:
        return None
    try:
        info = json.loads(raw)
    except ValueError:
        return None
    if not (info.get("dir_info") or {}).get("editable"):
        return None
    url = str(info.get("url", ""))
    if not url.startswith("file://"):
        return None
    from urllib.parse import unquote, urlparse

    root = Path(unquote(urlparse(url).path))
    return root if (root / "pyproject.toml").is_file() else None


def _tree_key(root: Path, package_dir: Path) -> str:
    """A hash of everything that goes into the wheel (names, sizes, mtimes): cheap, no file reads."""
    h = hashlib.sha256(sys.version.encode())
    for extra in ("pyproject.toml", "README.md", "LICENSE", "setup.cfg"):
        p = root / extra
        if p.is_file():
            st = p.stat()
            h.update(f"{extra}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fn in sorted(filenames):
            if fn.endswith((".pyc", ".pyo")):
                continue
            p = Path(dirpath) / fn
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def running_autocue_wheel(
    cache_dir: Path, *, uv: str | None, env: Mapping[str, str], timeout: float, offline: bool | None = True,
    notes: list[str] | None = None,
) -> Path:
    """A wheel of the running autocue: an autocue installed from a wheel is repacked from its installed
    files (reused, never rebuilt); a source checkout is built once per source state (cached), with
    ``offline`` deciding whether missing build requirements may be fetched (see ``build_package_wheel``)."""
    import autocue

    pkg = Path(autocue.__file__).resolve().parent
    base = cache_dir / "autocue"
    dist = installed("autocue")  # None: imported from a source tree that is not installed (PYTHONPATH=src)
    root = _source_root(dist) if dist is not None else next(
        (p for p in pkg.parents if (p / "pyproject.toml").is_file()), None)
    if root is None:
        if dist is None:
            raise SandboxStepError(Problem(
                ProblemKind.SANDBOX_ERROR, f"cannot find how the running autocue ({pkg}) was installed",
                "It is neither an installed distribution nor inside a source tree with pyproject.toml, so it "
                "cannot be installed into the sandbox.",
                "Install autocue (pip install autocue, or pip install -e <checkout>).",
            ))
        # An ordinary install: repack the installed files.
        wheel = repack(dist, base / f"installed-{dist.version}")
        if notes is not None:
            notes.append(f"autocue {dist.version}: the installed distribution is reused (repacked from its installed "
                         "files), not rebuilt")
        return wheel
    key = _tree_key(root, pkg)
    target = base / key
    found = sorted(target.glob("autocue-*.whl")) if target.is_dir() else []
    if found:
        with contextlib.suppress(OSError):
            os.utime(target)  # in use: keep it from being pruned
        return found[0]
    base.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="build-", dir=base))
    try:
        wheel = build_package_wheel(root, tmp, uv=uv, offline=offline, env=env, timeout=timeout, notes=notes)
        add_bytecode(wheel, pkg.parent)
        target.mkdir(parents=True, exist_ok=True)
        final = target / wheel.name
        os.replace(wheel, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _prune(base, keep={key})
    return final


def _prune(base: Path, keep: set[str], *, older_than: float = 3600.0) -> None:
    """Drop wheels of older source states not touched for ``older_than`` seconds (another process
    may still be installing one that was current a moment ago)."""
    import time

    limit = time.time() - older_than
    for d in base.iterdir():
        try:
            stale = d.is_dir() and d.name not in keep and len(d.name) == 16 and d.stat().st_mtime < limit
        except OSError:
            continue
        if stale and not d.name.startswith("build-"):
            shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------------------- the wheelhouse


def _wheel_tag(dist: md.Distribution) -> str | None:
    text = dist.read_text("WHEEL")
    return _parse_metadata(text).get("tag", [None])[0] if text else None


def _pyc(rel: str, data: bytes, src: Path | None, *, compile_missing: bool) -> tuple[str, bytes] | None:
    """An unchecked-hash ``.pyc`` for ``rel`` (so the fresh venv imports without compiling).

    The code is taken from a fresh timestamp pyc next to ``src`` when there is one (no compile), else
    compiled when ``compile_missing``. Unchecked-hash pycs stay valid whatever mtimes the installer sets.
    """
    magic = importlib.util.MAGIC_NUMBER
    code: bytes | None = None
    if src is not None:
        cached = Path(importlib.util.cache_from_source(str(src)))
        try:
            raw = cached.read_bytes()
            st = src.stat()
        except OSError:
            raw = b""
        if len(raw) > 16 and raw[:4] == magic and raw[4:8] == b"\0\0\0\0":
            mtime = int.from_bytes(raw[8:12], "little")
            size = int.from_bytes(raw[12:16], "little")
            if mtime == int(st.st_mtime) & 0xFFFFFFFF and size == st.st_size & 0xFFFFFFFF:
                code = raw[16:]
    if code is None:
        if not compile_missing:
            return None
        try:
            code = marshal.dumps(compile(data, rel, "exec", dont_inherit=True))
        except (SyntaxError, ValueError):
            return None
    header = magic + (1).to_bytes(4, "little") + importlib.util.source_hash(data)
    return importlib.util.cache_from_source(rel), header + code


def _record_line(rel: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def add_bytecode(wheel: Path, source_root: Path) -> None:
    """Rewrite a pure-Python wheel with unchecked-hash pycs for its modules (``source_root`` is where the
    same files live in the running environment, to reuse their pycs)."""
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as dst:
        record_name = next(n for n in src.namelist() if n.endswith(".dist-info/RECORD") and n.count("/") == 1)
        record = [ln for ln in src.read(record_name).decode().splitlines() if ln and not ln.startswith(record_name)]
        for info in src.infolist():
            if info.filename == record_name:
                continue
            data = src.read(info)
            dst.writestr(info, data)
            if info.filename.endswith(".py"):
                pyc = _pyc(info.filename, data, source_root / info.filename, compile_missing=True)
                if pyc is not None:
                    dst.writestr(zipfile.ZipInfo(pyc[0], date_time=info.date_time), pyc[1])
                    record.append(_record_line(pyc[0], pyc[1]))
        record.append(f"{record_name},,")
        dst.writestr(zipfile.ZipInfo(record_name, date_time=(2020, 2, 2, 0, 0, 0)), "\n".join(record) + "\n")
    os.replace(tmp, wheel)


def repack(dist: md.Distribution, out_dir: Path, *, bytecode: bool = True) -> Path:
    """Zip an installed distribution back into a wheel (its site-packages files and dist-info), with
    unchecked-hash pycs made from the installed ones (no compiling) when ``bytecode``."""
    tag = _wheel_tag(dist)
    files = dist.files
    if tag is None or files is None:
        raise LookupError(f"{dist.metadata['Name']} {dist.version} was not installed from a wheel; cannot repack it")
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    out = out_dir / f"{name}-{dist.version}-{tag}.whl"
    if out.is_file():
        return out
    out_dir.mkdir(parents=True, exist_ok=True)
    record: list[str] = []
    dist_info: str | None = None
    fd, tmp_name = tempfile.mkstemp(prefix=".repack-", suffix=".tmp", dir=out_dir)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp_name, "w", zipfile.ZIP_STORED) as z:
            for f in files:
                rel = f.as_posix()
                parts = rel.split("/")
                if rel.startswith(("..", "/")) or "__pycache__" in parts or rel.endswith((".pyc", ".pyo")):
                    continue
                if parts[0].endswith(".dist-info"):
                    dist_info = parts[0]
                    if len(parts) == 2 and parts[1] in _SKIP_DIST_INFO:
                        continue
                src = Path(str(dist.locate_file(f)))
                if not src.is_file():
                    continue
                data = src.read_bytes()
                info = zipfile.ZipInfo(rel, date_time=(2020, 2, 2, 0, 0, 0))
                info.external_attr = (src.stat().st_mode & 0xFFFF) << 16
                z.writestr(info, data)
                record.append(_record_line(rel, data))
                if rel.endswith(".py") and bytecode:
                    pyc = _pyc(rel, data, src, compile_missing=False)
                    if pyc is not None:
                        z.writestr(zipfile.ZipInfo(pyc[0], date_time=(2020, 2, 2, 0, 0, 0)), pyc[1])
                        record.append(_record_line(pyc[0], pyc[1]))
            if dist_info is None:
                raise LookupError(f"{name} {dist.version}: no .dist-info directory among its installed files")
            record.append(f"{dist_info}/RECORD,,")
            rec_info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 2, 2, 0, 0, 0))
            z.writestr(rec_info, "\n".join(record) + "\n")
        os.replace(tmp_name, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
    return out


@dataclass
class Wheelhouse:
    path: Path
    wheels: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Requirements that could not be provided (not installed here, or not repackable), with why."""


def ensure_wheelhouse(cache_dir: Path, roots: Iterable[Req], *, exclude: Iterable[str] = ()) -> Wheelhouse:
    """Repack the installed closure of ``roots`` into ``<cache>/wheelhouse`` (existing wheels are reused)."""
    house = Wheelhouse(cache_dir / "wheelhouse")
    house.path.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, tuple[str, ...]]] = set()
    excluded = {canonical(e) for e in exclude}
    todo = list(roots)
    while todo:
        req = todo.pop()
        key = (req.name, req.extras)
        if key in done or req.name in excluded:
            continue
        done.add(key)
        dist = installed(req.name)
        if dist is None:
            house.skipped.append(f"{req.text or req.name}: not installed in the running environment")
            continue
        if _source_root(dist) is not None:
            house.skipped.append(f"{req.name}: an editable install here; cannot repack it")
            continue
        try:
            house.wheels.append(repack(dist, house.path))
        except LookupError as e:
            house.skipped.append(str(e))
            continue
        todo.extend(parse_requirements(dist.requires or [], req.extras))
    return house


def source_modules(package_dir: Path) -> dict[str, str]:
    """Dotted module names in a package's source tree (flat and ``src/`` layouts) → their paths."""
    out: dict[str, str] = {}
    bases = [package_dir]
    if (package_dir / "src").is_dir():
        bases.insert(0, package_dir / "src")
    for base in bases:
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = Path(dirpath).relative_to(base)
            dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                           and (base != package_dir or rel_dir != Path(".") or d not in ("src", "tests", "test"))]
            for fn in filenames:
                if not fn.endswith(".py") or fn in ("setup.py", "conftest.py", "noxfile.py"):
                    continue
                parts = [*rel_dir.parts, fn[:-3]]
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                if parts and all(p.isidentifier() for p in parts):
                    out.setdefault(".".join(parts), str(Path(dirpath, fn).relative_to(package_dir)))
    return out


__all__ = [
    "Req", "Wheelhouse", "backend_installed", "build_package_wheel", "canonical", "ensure_wheelhouse", "installed",
    "parse_requirements", "read_pyproject", "repack", "requirement_satisfied", "running_autocue_wheel",
    "source_modules", "wheel_metadata",
]
