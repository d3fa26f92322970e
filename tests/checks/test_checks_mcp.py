"""``autocue mcp`` over stdio, driven by the official ``mcp`` client: setup → mock → run → assert →
inspect → diff → cleanup; and the stale-workspace cleanup at server start."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from autocue.checks import TestTools
from autocue.checks.workspace import MARKER


def _params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "autocue.cli.main", "mcp", "--root", str(root)],
        env={**os.environ},
    )


async def _call(s: ClientSession, name: str, args: dict[str, Any]) -> dict[str, Any]:
    res = await s.call_tool(name, args)
    assert not res.is_error, res.content
    assert res.structured_content is not None
    text = res.content[0].text  # type: ignore[union-attr]
    assert json.loads(text) == res.structured_content
    return res.structured_content


async def test_full_cycle_over_stdio(tmp_path: Path) -> None:
    root = tmp_path / "root"
    async with stdio_client(_params(root)) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        assert init.server_info.name == "autocue-checks"
        names = sorted(t.name for t in (await s.list_tools()).tools)
        assert names == ["test_assert", "test_cleanup", "test_diff", "test_inspect", "test_mock_backend",
                         "test_run", "test_setup", "test_snapshot"]

        setup = await _call(s, "test_setup", {
            "workspace_id": "mcp_001", "scratchpad": "## Plan\n(empty)",
            "fixtures": {"src/main.rs": "fn main() {}\n"},
            "config": {"hats": {"planner": {"triggers": ["task.start"], "publishes": ["build.task"]},
                                "builder": {"triggers": ["build.task"], "publishes": ["build.done"]}}},
        })
        assert Path(setup["workspace_path"]).parent == root.resolve()
        assert sorted(setup["created_files"]) == [".agent/scratchpad.md", "src/main.rs"]

        mock = await _call(s, "test_mock_backend", {"workspace_id": "mcp_001", "responses": [
            {"hat": "planner", "output": '<event topic="build.task">write main</event>'},
            {"hat": "builder", "output": "## Completed\nLOOP_COMPLETE",
             "files": {"src/main.rs": "fn main() {\n    println!(\"hi\");\n}\n"}},
        ]})
        assert mock == {"configured": True, "response_count": 2}

        run = await _call(s, "test_run", {"workspace_id": "mcp_001", "task": "Implement main"})
        assert (run["exit_code"], run["termination_reason"], run["iterations"]) == (0, "CompletionPromise", 2)
        assert run["mock_responses_consumed"] == 2 and run["mock_responses_remaining"] == 0

        check = await _call(s, "test_assert", {"workspace_id": "mcp_001", "assertions": [
            {"type": "exit_code", "expected": 0},
            {"type": "event_sequence", "topics": ["task.start", "build.task"]},
            {"type": "file_contains", "path": "src/main.rs", "pattern": "println"},
            {"type": "iterations", "exact": 2},
        ]})
        assert check["passed"] is True and check["failed_count"] == 0 and len(check["results"]) == 4

        timeline = await _call(s, "test_inspect", {"workspace_id": "mcp_001", "format": "timeline"})
        assert [e["events"] for e in timeline["timeline"]] == [["task.start → build.task"], ["build.task → (none)"]]
        records = await _call(s, "test_inspect", {"workspace_id": "mcp_001", "limit": 2,
                                                  "filter": {"event_types": ["bus.publish"]}})
        assert len(records["records"]) == 2 and records["truncated"] is True and records["total_matched"] == 3

        diff = await _call(s, "test_diff", {"workspace_id": "mcp_001", "baseline": "initial"})
        assert diff["changed_files"] == ["src/main.rs"] and diff["diffs"]["src/main.rs"]["additions"] == 3

        bad = await s.call_tool("test_inspect", {"workspace_id": "nope"})
        assert bad.is_error and "unknown_workspace" in bad.content[0].text  # type: ignore[union-attr]
        assert "mcp_001" in bad.content[0].text  # type: ignore[union-attr]

        gone = await _call(s, "test_cleanup", {"workspace_id": "mcp_001"})
        assert gone == {"deleted": True, "preserved_files": []}
    assert not (root / "mcp_001").exists()


async def test_stale_workspaces_are_cleaned_when_the_server_starts(tmp_path: Path) -> None:
    root = tmp_path / "root"
    tools = TestTools(root)
    tools.test_setup("stale")
    tools.test_setup("recent")
    past = time.time() - 3 * 24 * 3600
    os.utime(root / "stale" / MARKER, (past, past))
    (root / "users-own").mkdir()  # an id-named folder without the marker: never deleted
    (root / "users-own" / "data.txt").write_text("keep")
    os.utime(root / "users-own", (past, past))
    errlog = tmp_path / "stderr.txt"
    with errlog.open("w") as err:
        async with stdio_client(_params(root), errlog=err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            res = await s.call_tool("test_inspect", {"workspace_id": "stale"})
            assert res.is_error and "recent" in res.content[0].text  # type: ignore[union-attr]
    assert not (root / "stale").exists() and (root / "recent").is_dir()
    assert (root / "users-own" / "data.txt").read_text() == "keep"
    assert f"left {root / 'users-own'} alone: no marker" in errlog.read_text()
