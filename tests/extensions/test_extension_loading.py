"""Loading extensions from files, packages, module names, factories, directories and entry points."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from autocue.extensions import LoadError, load_extensions
from autocue.script import ScriptedProvider
from autocue.session import AgentSession

GOOD = """
def extension(api):
    api.register_command("{name}", lambda args, ctx: None)
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def commands(result: Any) -> list[str]:
    return [c for e in result.extensions for c in e.commands]


def test_file_package_and_index_dir(tmp_path: Path) -> None:
    write(tmp_path / "one.py", GOOD.format(name="one"))
    write(tmp_path / "pkg" / "__init__.py", "from .impl import extension\n")
    write(tmp_path / "pkg" / "impl.py", GOOD.format(name="pkg"))
    write(tmp_path / "idx" / "index.py", GOOD.format(name="idx"))
    r = load_extensions(["one.py", str(tmp_path / "pkg"), "./idx"], cwd=tmp_path)
    assert r.errors == []
    assert [e.name for e in r.extensions] == ["one", "pkg", "idx"]
    assert commands(r) == ["one", "pkg", "idx"]
    assert r.extensions[0].path == str(tmp_path / "one.py")


def test_module_name_and_attribute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modname = f"autocue_test_ext_{tmp_path.name.replace('-', '_')}"
    write(tmp_path / f"{modname}.py", GOOD.format(name="mod") + "\ndef other(api):\n    api.register_flag('f')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        r = load_extensions([modname, f"{modname}:other"], cwd="/")
        assert r.errors == []
        assert [e.path for e in r.extensions] == [f"module:{modname}", f"module:{modname}:other"]
        assert "f" in r.extensions[1].flags
    finally:
        sys.modules.pop(modname, None)


def test_failures_are_reported_and_the_rest_still_load(tmp_path: Path) -> None:
    write(tmp_path / "syntax.py", "def extension(api:\n")
    write(tmp_path / "raises.py", "def extension(api):\n    raise RuntimeError('bad config')\n")
    write(tmp_path / "nofunc.py", "x = 1\n")
    write(tmp_path / "ok.py", GOOD.format(name="ok"))
    r = load_extensions(
        ["syntax.py", "raises.py", "nofunc.py", "missing.py", "no_such_module_xyz", "ok.py"], cwd=tmp_path
    )
    assert commands(r) == ["ok"]
    by = {e.name: e for e in r.errors}
    assert set(by) == {"syntax", "raises", "nofunc", "missing", "no_such_module_xyz"}
    assert isinstance(by["syntax"].error, SyntaxError)
    assert "bad config" in str(by["raises"].error) and "raises.py" in by["raises"].traceback
    assert "no `extension(api)` function" in str(by["nofunc"].error)
    assert isinstance(by["missing"].error, FileNotFoundError)
    assert "neither a file nor an importable module" in str(by["no_such_module_xyz"].error)
    err: LoadError = by["raises"]
    assert err.path == str(tmp_path / "raises.py")
    assert err.message.startswith("extension raises (") and "RuntimeError: bad config" in str(err)


def test_same_file_loads_once_and_module_state_is_per_load(tmp_path: Path) -> None:
    write(tmp_path / "counter.py", """
        loads = []
        def extension(api):
            loads.append(1)
            api.register_flag("n", default=len(loads))
    """)
    r1 = load_extensions(["counter.py", str(tmp_path / "counter.py")], cwd=tmp_path)
    r2 = load_extensions(["counter.py"], cwd=tmp_path)
    assert len(r1.extensions) == 1
    assert r1.extensions[0].flags["n"].default == 1 and r2.extensions[0].flags["n"].default == 1


def test_discovery_project_then_user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, user = tmp_path / "proj", tmp_path / "home"
    write(project / ".autocue" / "extensions" / "b_proj.py", GOOD.format(name="proj"))
    write(project / ".autocue" / "extensions" / "_private.py", "raise SystemExit('must not load')\n")
    write(user / "extensions" / "a_user" / "__init__.py", GOOD.format(name="user"))
    r = load_extensions([], cwd=project, discover=True, agent_dir=user)
    assert r.errors == [] and commands(r) == ["proj", "user"]
    monkeypatch.setenv("AUTOCUE_DIR", str(user))
    r2 = load_extensions([], cwd=project, discover=True)
    assert commands(r2) == ["proj", "user"]
    assert load_extensions([], cwd=project, discover=False).extensions == []


def test_entry_point_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    modname = f"autocue_ep_ext_{tmp_path.name.replace('-', '_')}"
    write(site / f"{modname}.py", GOOD.format(name="ep"))
    dist = site / "autocue_ep_demo-1.0.dist-info"
    write(dist / "METADATA", "Metadata-Version: 2.1\nName: autocue-ep-demo\nVersion: 1.0\n")
    write(dist / "entry_points.txt", f"[autocue.extensions]\ndemo = {modname}\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        r = load_extensions([], cwd=tmp_path, discover=True, agent_dir=tmp_path / "nothing")
        assert [e.name for e in r.extensions] == ["demo"]
        assert r.extensions[0].path.startswith("entry-point:demo")
        assert commands(r) == ["ep"]
    finally:
        sys.modules.pop(modname, None)


async def test_async_extension_finishes_loading_when_the_session_binds(tmp_path: Path) -> None:
    write(tmp_path / "slow.py", """
        import asyncio
        async def extension(api):
            await asyncio.sleep(0)
            api.register_command("slow", lambda args, ctx: None)
    """)
    write(tmp_path / "slowfail.py", """
        async def extension(api):
            raise ValueError("async boom")
    """)
    s = AgentSession(provider=ScriptedProvider(), extensions=["slow.py", "slowfail.py"], cwd=tmp_path, tools=[])
    assert s.extensions_result.errors == []
    await s.bind_extensions()
    assert [e.name for e in s.extensions_result.extensions] == ["slow"]
    [err] = s.extensions_result.errors
    assert err.name == "slowfail" and "async boom" in str(err.error)
    assert [c.name for c in s.get_commands()] == ["slow"]


async def test_create_agent_session_discovers_and_binds(tmp_path: Path) -> None:
    from autocue.session import create_agent_session

    write(tmp_path / ".autocue" / "extensions" / "starter.py", """
        started = []
        def extension(api):
            api.on("session_start", lambda e, ctx: api.set_session_name("started"))
    """)
    write(tmp_path / ".autocue" / "settings.json", '{"retry": {"maxRetries": 7}, "extensions": ["extra.py"]}')
    write(tmp_path / "extra.py", GOOD.format(name="extra"))
    session, result = await create_agent_session(provider=ScriptedProvider(), cwd=tmp_path, tools=[],
                                                 agent_dir=tmp_path / "userdir")
    assert [e.name for e in result.extensions] == ["extra", "starter"] and result.errors == []
    assert session.session_manager.get_session_name() == "started"
    assert session.settings.retry.max_retries == 7
    await session.dispose()
