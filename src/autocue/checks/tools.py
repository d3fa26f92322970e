"""``TestTools``: the eight test tools over one workspace root.

Public surface: ``TestTools(root=None)`` with ``test_setup``, ``test_run`` (and
``test_run_async``), ``test_assert``, ``test_inspect``, ``test_cleanup``, ``test_mock_backend``,
``test_snapshot``, ``test_diff``, plus ``list_workspaces`` and ``clean_stale``. Parameters
and return shapes are the seed's (``seeds/003``); see ``docs/orchestrator.md``. A tool that
cannot run raises ``TestToolError`` (``code``, ``message``, details).

State lives in the workspace (``.autocue/checks/``), never in this object, so two
``TestTools`` on the same root (two CLI calls, an MCP server) see the same workspaces.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

from autocue.checks.assertions import evaluate
from autocue.checks.errors import TestToolError
from autocue.checks.inspect import inspect_records, load_records
from autocue.checks.snapshots import (
    diff_files,
    load_snapshot,
    next_snapshot_id,
    save_snapshot,
    skipped_note,
    take_snapshot,
)
from autocue.checks.workspace import SESSION_FILE, Workspace, WorkspaceStore
from autocue.dicts import deep_merge
from autocue.loop.config import COMMAND_PRESETS, LoopConfigError, config_from_dict
from autocue.loop.engine import EventLoop
from autocue.loop.mock_backend import MockBackend, MockConfigError, parse_mock_responses
from autocue.loop.paths import SCRATCHPAD
from autocue.loop.result import LoopResult
from autocue.loop.safe_files import UnsafeFileError, lstat_in

BACKENDS = ("mock", "command", "agent", *COMMAND_PRESETS)
OUTPUT_LIMIT = 65536


def _clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"…[{len(text) - limit} earlier characters cut]\n" + text[-limit:]


def _opt_dict(v: Any, name: str) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise TestToolError("invalid_argument", f"{name} must be an object, got {type(v).__name__}")
    return v


def _positive(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise TestToolError("invalid_argument", f"{name} must be a positive integer, got {v!r}")
    return v


class TestTools:
    """See module docstring."""

    __test__ = False

    def __init__(self, root: str | Path | None = None) -> None:
        self.store = WorkspaceStore(root)

    # ------------------------------------------------------------------ registry
    def list_workspaces(self) -> list[str]:
        return self.store.ids()

    def clean_stale(self, max_age_secs: float) -> list[str]:
        return self.store.clean_stale(max_age_secs)

    def workspace(self, workspace_id: Any) -> Workspace:
        return self.store.get(workspace_id)

    # ------------------------------------------------------------------ setup / cleanup
    def test_setup(
        self,
        workspace_id: str,
        fixtures: dict[str, str] | None = None,
        config: dict[str, Any] | None = None,
        scratchpad: str | None = None,
    ) -> dict[str, Any]:
        fixtures = _opt_dict(fixtures, "fixtures")
        config = _opt_dict(config, "config")
        if scratchpad is not None and not isinstance(scratchpad, str):
            raise TestToolError("invalid_argument", "scratchpad must be a string")
        for path, content in fixtures.items():
            if not isinstance(content, str):
                raise TestToolError("invalid_argument", f"fixture {path!r}: content must be a string")
        try:
            config_from_dict(config, source="test_setup config")
        except LoopConfigError as e:
            raise TestToolError("invalid_argument", f"invalid config: {e}") from None
        ws, warnings = self.store.create(workspace_id)
        created: list[str] = []
        try:
            for path, content in fixtures.items():
                target = ws.resolve(path)
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(content, encoding="utf-8")
                except (IsADirectoryError, NotADirectoryError, FileExistsError) as e:
                    what = "is a directory" if isinstance(e, IsADirectoryError) else "is below a fixture file"
                    raise TestToolError("invalid_argument", f"fixture {path!r} {what}: a fixture path names a "
                                        "file, and no fixture path may be a folder of another", path=path) from None
                created.append(target.relative_to(ws.path.resolve()).as_posix())
            if scratchpad is not None:
                ws.scratchpad.parent.mkdir(parents=True, exist_ok=True)
                ws.scratchpad.write_text(scratchpad, encoding="utf-8")
                if SCRATCHPAD not in created:
                    created.append(SCRATCHPAD)
        except BaseException:
            shutil.rmtree(ws.path, ignore_errors=True)
            raise
        ws.write_state("config", config)
        files, _total, _ = take_snapshot(ws)
        save_snapshot(ws, "initial", {"files": files, "include": None, "exclude": None, "created_at": time.time()})
        out: dict[str, Any] = {"workspace_path": str(ws.path), "workspace_id": ws.id, "created_files": created}
        if warnings:
            out["warnings"] = warnings
        return out

    def test_cleanup(self, workspace_id: str, preserve_session: bool = False) -> dict[str, Any]:
        preserved, warnings = self.store.remove(workspace_id, preserve_session=bool(preserve_session))
        out: dict[str, Any] = {"deleted": True, "preserved_files": preserved}
        if warnings:
            out["warnings"] = warnings
        return out

    # ------------------------------------------------------------------ mock / run
    def test_mock_backend(self, workspace_id: str, responses: list[dict[str, Any]]) -> dict[str, Any]:
        ws = self.store.get(workspace_id)
        try:
            parsed = parse_mock_responses(responses)
        except MockConfigError as e:
            raise TestToolError("invalid_argument", str(e)) from None
        if not parsed:
            raise TestToolError("invalid_argument", "responses must hold at least one mock response")
        ws.write_state("mock", [r.to_dict() for r in parsed])
        return {"configured": True, "response_count": len(parsed)}

    def test_run(self, workspace_id: str, task: str, **kwargs: Any) -> dict[str, Any]:
        return asyncio.run(self.test_run_async(workspace_id, task, **kwargs))

    async def test_run_async(
        self,
        workspace_id: str,
        task: str,
        backend: str = "mock",
        max_iterations: int = 5,
        max_runtime_secs: int | float = 300,
        env: dict[str, str] | None = None,
        mock_responses: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        ws = self.store.get(workspace_id)
        env_vars = _run_arguments(task, backend, max_iterations, max_runtime_secs, env)
        overrides = ws.read_state("config", {}) or {}
        raw = deep_merge(overrides, {"event_loop": {
            "max_iterations": max_iterations, "max_runtime_seconds": max_runtime_secs}})
        loop_backend = _pick_backend(ws, raw, backend, mock_responses, env_vars)
        warnings = _dirty_warnings(ws)
        try:
            cfg = config_from_dict(raw, source="test_run config", base_dir=ws.path)
            loop = EventLoop(cfg, prompt=task, workspace=ws.path, session_path=ws.session_file,
                             backend=loop_backend, env=env_vars)
        except LoopConfigError as e:
            raise TestToolError("invalid_argument", str(e)) from None
        try:
            result = await loop.run()
        except UnsafeFileError as e:  # the agent of an earlier run planted a link where the loop writes
            raise TestToolError("unsafe_workspace_file", str(e), path=str(e.path)) from None
        out = _run_report(result, warnings)
        ws.write_state("last_run", {**out, "stdout_full": result.stdout, "stderr_full": result.stderr,
                                    "hats_run": result.hats_run, "task": task, "backend": backend})
        return out

    # ------------------------------------------------------------------ assert / inspect
    def test_assert(self, workspace_id: str, assertions: list[dict[str, Any]]) -> dict[str, Any]:
        return evaluate(self.store.get(workspace_id), assertions)

    def test_inspect(
        self,
        workspace_id: str,
        filter: dict[str, Any] | None = None,
        limit: int = 100,
        format: str = "json",
    ) -> dict[str, Any]:
        ws = self.store.get(workspace_id)
        return inspect_records(load_records(ws), filter, limit, format)

    # ------------------------------------------------------------------ snapshots
    def test_snapshot(
        self,
        workspace_id: str,
        include_patterns: list[str] | None = None,
        exclude_patterns: list[str] | None = None,
    ) -> dict[str, Any]:
        ws = self.store.get(workspace_id)
        for name, pats in (("include_patterns", include_patterns), ("exclude_patterns", exclude_patterns)):
            if pats is not None and (not isinstance(pats, list) or not all(isinstance(p, str) for p in pats)):
                raise TestToolError("invalid_argument", f"{name} must be a list of glob strings")
        files, total, skipped = take_snapshot(ws, include_patterns, exclude_patterns)
        sid = next_snapshot_id(ws)
        save_snapshot(ws, sid, {"files": files, "include": include_patterns, "exclude": exclude_patterns,
                                "created_at": time.time()})
        out: dict[str, Any] = {"snapshot_id": sid, "files": files, "file_count": len(files), "total_bytes": total}
        return {**out, **skipped_note(skipped)}

    def test_diff(self, workspace_id: str, baseline: str, compare_to: str = "current") -> dict[str, Any]:
        ws = self.store.get(workspace_id)
        if not isinstance(baseline, str) or not baseline:
            raise TestToolError("invalid_argument", "baseline must be a snapshot id or 'initial'")
        base = load_snapshot(ws, baseline)
        skipped: dict[str, str] = {}
        if compare_to in (None, "", "current"):
            after, _, skipped = take_snapshot(ws, base.get("include"), base.get("exclude"))
        else:
            after = load_snapshot(ws, compare_to)["files"]
        return {**diff_files(base["files"], after), **skipped_note(skipped)}


# ---------------------------------------------------------------------- test_run's phases
def _run_arguments(task: Any, backend: Any, max_iterations: Any, max_runtime_secs: Any, env: Any) -> dict[str, str]:
    """Check ``test_run``'s arguments; returns the backend's environment as strings."""
    if not isinstance(task, str) or not task.strip():
        raise TestToolError("invalid_argument", "task must be a non-empty string")
    _positive(max_iterations, "max_iterations")
    rt = max_runtime_secs
    if isinstance(rt, bool) or not isinstance(rt, (int, float)) or rt <= 0:
        raise TestToolError("invalid_argument", f"max_runtime_secs must be a positive number, got {rt!r}")
    env_vars = {str(k): str(v) for k, v in _opt_dict(env, "env").items()}
    if backend not in BACKENDS:
        raise TestToolError("invalid_argument", f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    return env_vars


def _pick_backend(ws: Workspace, raw: dict[str, Any], backend: str,
                  mock_responses: list[dict[str, Any]] | None, env_vars: dict[str, str]) -> MockBackend | None:
    """The loop's backend: a ``MockBackend`` for ``mock`` (its config sections dropped from ``raw``),
    else None after checking that the CLI of a preset is on PATH or that ``raw`` has a matching section."""
    if backend == "mock":
        return _mock_backend(ws, raw, mock_responses)
    if backend in COMMAND_PRESETS:
        preset = COMMAND_PRESETS[backend]
        path = env_vars.get("PATH", os.environ.get("PATH"))
        if shutil.which(preset["command"], path=path) is None:
            raise TestToolError(
                "backend_unavailable",
                f"backend {backend!r} runs the {preset['command']!r} CLI, which is not on PATH. Install and "
                "log it in (credentials come from env), or use backend 'mock'.",
            )
        raw["backend"] = backend
        return None
    spec = raw.get("backend")
    kind = spec.get("type", "command" if "command" in spec else None) if isinstance(spec, dict) else spec
    if kind != backend:
        raise TestToolError(
            "invalid_argument",
            f"backend {backend!r} needs a matching 'backend' section in the test_setup config "
            f"(e.g. {{'backend': {{'type': '{backend}', ...}}}})",
        )
    return None


def _mock_backend(ws: Workspace, raw: dict[str, Any], mock_responses: list[dict[str, Any]] | None) -> MockBackend:
    """The responses given, else those of test_mock_backend, else the config's mock section."""
    items: Any = mock_responses
    if items is None:
        items = ws.read_state("mock")
    if items is None and isinstance(raw.get("backend"), dict) and raw["backend"].get("type") == "mock":
        items = raw["backend"].get("responses")
    if not items:
        raise TestToolError(
            "invalid_argument",
            "the mock backend needs responses: call test_mock_backend first or pass mock_responses",
        )
    try:
        loop_backend = MockBackend(parse_mock_responses(items))
    except MockConfigError as e:
        raise TestToolError("invalid_argument", str(e)) from None
    raw.pop("backend", None)
    raw.pop("cli", None)
    for hat in (raw.get("hats") or {}).values():
        if isinstance(hat, dict):
            hat.pop("backend", None)
    return loop_backend


def _dirty_warnings(ws: Workspace) -> list[str]:
    if lstat_in(ws.path, SESSION_FILE) is not None or ws.read_state("last_run") is not None:
        return [
            f"workspace {ws.id!r} is dirty: it holds a previous run; its session.jsonl is replaced "
            "(files the previous run changed are kept)"
        ]
    return []


def _run_report(result: LoopResult, warnings: list[str]) -> dict[str, Any]:
    """``test_run``'s result: the loop's (with the mock's counts among its backend stats), outputs
    clipped, the unconsumed mock responses only when there are some, every warning."""
    out = result.to_dict()
    out["stdout"] = _clip(result.stdout)
    out["stderr"] = _clip(result.stderr)
    if not out.get("mock_responses_unconsumed"):
        out.pop("mock_responses_unconsumed", None)
    if warnings:
        out["warnings"] = warnings + result.warnings
    return out


__all__ = ["BACKENDS", "SESSION_FILE", "TestTools"]
