"""A scenario's workspace: a fresh temp dir seeded from its ``repo`` block.

Order: ``repo.dir`` (a folder next to the scenario, copied), then ``repo.files`` (text or
``{base64}`` bytes), then ``repo.init`` (``git init``, every file in an initial commit) and
``repo.branch`` (created and checked out; with no ``init`` but an existing repo copied from
``dir``, checked out there). Paths are relative to the workspace unless absolute.
At the end of a run, ``missing_artifact`` checks an ``expect.artifacts`` entry against it.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

from autocue.runner.errors import WorkspaceError as WorkspaceError
from autocue.scenario import Scenario
from autocue.scenario.model import Artifact

GIT_ENV = {"GIT_AUTHOR_NAME": "autocue", "GIT_AUTHOR_EMAIL": "autocue@localhost",
           "GIT_COMMITTER_NAME": "autocue", "GIT_COMMITTER_EMAIL": "autocue@localhost",
           "GIT_CONFIG_NOSYSTEM": "1"}


def git(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})


def _git_ok(workspace: Path, *args: str) -> None:
    r = git(workspace, *args)
    if r.returncode != 0:
        raise WorkspaceError(f"git {' '.join(args)} failed in {workspace}: {(r.stderr or r.stdout).strip()}")


def seed_workspace(scenario: Scenario, ws: Path) -> None:
    repo = scenario.repo
    if repo is None:
        return
    if repo.dir:
        src = Path(scenario.file).resolve().parent / repo.dir  # an absolute repo.dir stays as it is
        if not src.is_dir():
            raise WorkspaceError(f"repo.dir {repo.dir!r}: no such folder ({src})")
        shutil.copytree(src, ws, dirs_exist_ok=True, symlinks=True)
    for f in repo.files:
        target = ws / f.path
        if Path(f.path).is_absolute() and target.exists():
            raise WorkspaceError(f"repo.files {f.path!r} is an absolute path that already exists: the runner does "
                                 "not overwrite files it did not create (use a path relative to the workspace)")
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(f.contents, bytes):
            target.write_bytes(f.contents)
        else:
            target.write_text(f.contents, encoding="utf-8")
    if repo.init:
        if not (ws / ".git").exists():
            _git_ok(ws, "init", "-q")
        _git_ok(ws, "add", "-A")
        _git_ok(ws, "commit", "-q", "--allow-empty", "--no-verify", "-m", "initial")
    if repo.branch:
        if not (ws / ".git").exists():
            raise WorkspaceError(f"repo.branch {repo.branch!r} needs a git repo: add `init: true`")
        _git_ok(ws, "checkout", "-q", "-B", repo.branch)


_IS_TYPE = {"any": os.path.lexists, "file": os.path.isfile, "dir": os.path.isdir}


def missing_artifact(ws: Path, artifact: Artifact) -> str | None:
    """Why ``artifact`` is not in the workspace ``ws`` (nothing matches its glob, or no match is of
    its ``type``: ``file``, ``dir``, or ``any`` — another word is a label, checked as ``any``), or
    None when it is."""
    matches = glob.glob(glob.escape(str(ws)) + os.sep + artifact.pattern, recursive=True)
    if any(_IS_TYPE.get(artifact.type, os.path.lexists)(m) for m in matches):
        return None
    found = "none found" if not matches else f"found only {_kinds(matches)}, not a {artifact.type}"
    return f"expected artifact {artifact.type!r} matching {artifact.pattern!r} in the workspace {ws}: {found}"


def _kinds(matches: list[str]) -> str:
    names = [f"{os.path.basename(m.rstrip(os.sep))}{'/' if os.path.isdir(m) else ''}" for m in sorted(matches)[:3]]
    return ", ".join(names) + (f" (+{len(matches) - 3} more)" if len(matches) > 3 else "")
