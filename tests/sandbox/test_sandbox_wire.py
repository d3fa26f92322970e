"""The smoke wire format and the events round trip (no subprocess: fast)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from autocue.llm.types import TextContent
from autocue.sandbox.check import check_expect
from autocue.sandbox.smoke import (
    SmokeSpecError,
    events_from_json,
    events_to_json,
    load_smoke_file,
    smoke_to_wire,
    wire_mock_ui,
    wire_to_turns,
)
from autocue.sandbox.wheels import parse_requirements, repack, source_modules
from autocue.testing import CANCEL, call, create_test_session, fail, parallel, say, think, when

PLANNER = Path(__file__).resolve().parents[2] / "examples" / "planner"


def test_dsl_to_wire_and_back() -> None:
    turns = [
        when("One", [think("hmm"), call("a", {"x": [1, 2]}, id="c1", usage={"input": 5}), say("done")]),
        when("Two", [parallel(call("b", {}), say("both")), fail("boom", "overloaded", status=529)]),
    ]
    wire = smoke_to_wire({"mock_tools": {"bash": "ok"}, "mock_ui": {"confirm": False, "input": CANCEL},
                          "script": turns})
    assert json.loads(json.dumps(wire)) == wire
    assert wire["script"][0] == {"when": "One", "do": [
        {"think": "hmm"},
        {"call": "a", "params": {"x": [1, 2]}, "id": "c1",
         "usage": {"input": 5, "output": 0, "cache_read": 0, "cache_write": 0, "total_tokens": 5}},
        {"say": "done"},
    ]}
    assert wire["mock_ui"] == {"confirm": False, "input": {"$cancel": True}}
    assert wire_mock_ui(wire["mock_ui"])["input"] is CANCEL
    back = wire_to_turns(wire["script"])
    assert [a.describe() for a in back[0].actions] == [a.describe() for a in turns[0].actions]
    assert [a.describe() for a in back[1].actions] == [a.describe() for a in turns[1].actions]
    assert back[0].actions[1].usage.input == 5  # type: ignore[union-attr]


@pytest.mark.parametrize(("smoke", "message"), [
    ({"script": [when("p", [call("t", lambda: {})])]},
     "smoke: turn 1 (when \"p\"), action 1: call('t', <late-bound>) has late-bound params"),
    ({"script": [when("p", [say("a"), call("t", {}).then(print)])]},
     "smoke: turn 1 (when \"p\"), action 2: call('t', ...).then(...) has a callback"),
    ({"mock_tools": {"bash": lambda p: "x"}, "script": [when("p", [say("a")])]},
     "smoke: mock_tools['bash'] is a function"),
    ({"mock_ui": {"confirm": lambda t, m: True}, "script": [when("p", [say("a")])]},
     "smoke: mock_ui['confirm'] is a function"),
    ({"mock_ui": {"pick": 1}, "script": [when("p", [say("a")])]}, "unknown mock_ui option 'pick'"),
    ({"script": []}, "'script' must be a non-empty list"),
    ({"script": [when("p", [say("a")])], "mockTools": {}}, "unknown key(s) ['mockTools']"),
    ({"script": [when("p", [call("t", {"f": object()})])]}, "smoke values must be JSON data"),
    ({"script": [{"when": "p", "do": [{"say": "a", "call": "t"}]}]},
     "smoke: turn 1, action 1: an action needs exactly one of call, say, think, parallel, fail"),
    ({"script": [{"when": "p", "do": [{"call": "t", "parms": {}}]}]},
     "unknown key(s) ['parms'] for a 'call' action"),
])
def test_unsendable_smoke_is_refused(smoke: dict[str, object], message: str) -> None:
    with pytest.raises(SmokeSpecError) as info:
        smoke_to_wire(smoke)
    assert message in str(info.value)


def test_smoke_files(tmp_path: Path) -> None:
    py = tmp_path / "smoke_check.py"
    py.write_text("from autocue.testing import when, call, say\n"
                  "smoke = {'script': [when('List', [call('plan_list', {}), say('ok')])]}\n")
    assert load_smoke_file(py)["script"][0]["do"][0] == {"call": "plan_list", "params": {}}
    bad_yaml = tmp_path / "s.yaml"
    bad_yaml.write_text("script:\n  - when: [unclosed\n")
    with pytest.raises(SmokeSpecError, match=r"s\.yaml:2:20: invalid YAML: .*expected ',' or ']'"):
        load_smoke_file(bad_yaml)
    empty_py = tmp_path / "nothing.py"
    empty_py.write_text("x = 1\n")
    with pytest.raises(SmokeSpecError, match="define `smoke = "):
        load_smoke_file(empty_py)
    with pytest.raises(SmokeSpecError, match="does not exist"):
        load_smoke_file(tmp_path / "missing.yaml")


def test_events_round_trip_keeps_the_query_helpers() -> None:
    with create_test_session(extensions=[str(PLANNER / "planner.py")], mock_tools={"bash": "ok"},
                             mock_ui={"confirm": CANCEL}) as t:
        t.run_sync(
            when("mode", [call("plan_mode", {"enable": True}), call("bash", {"command": "ls"}), say("no")]),
            when("propose", [call("plan_propose", {"title": "T", "steps": ["a"]}), say("ok")]),
        )
        original = t.events
        copy = events_from_json(json.loads(json.dumps(events_to_json(original))))
    assert copy.tool_sequence() == original.tool_sequence() == ["plan_mode", "bash", "plan_propose"]
    assert copy.tool_calls == original.tool_calls
    for a, b in zip(copy.tool_results, original.tool_results, strict=True):
        assert (a.tool_name, a.text, a.is_error, a.blocked, a.mocked, a.step, a.turn, a.details) == (
            b.tool_name, b.text, b.is_error, b.blocked, b.mocked, b.step, b.turn, b.details)
        assert a.content == b.content and all(isinstance(c, TextContent) for c in a.content)
    assert [c.tool_name for c in copy.blocked_calls()] == ["bash"]
    assert copy.ui_calls_for("set_status") == original.ui_calls_for("set_status")
    assert [type(m).__name__ for m in copy.messages] == [type(m).__name__ for m in original.messages]
    assert [getattr(e, "type", None) for e in copy.all] == [getattr(e, "type", None) for e in original.all]
    start = copy.of_type("tool_execution_start")[0]
    assert start.tool_name == start.toolName == "plan_mode"
    with pytest.raises(AttributeError, match="has no field 'nope'"):
        _ = start.nope


def test_expect_is_validated() -> None:
    assert check_expect({"extensions": 1, "tools": ["a"], "skills": 2}) == {"extensions": 1, "tools": ["a"],
                                                                             "skills": 2}
    with pytest.raises(TypeError, match=r"unknown key\(s\) \['tool'\]. Valid keys: extensions, tools, skills"):
        check_expect({"tool": ["a"]})
    with pytest.raises(TypeError, match="list of tool names"):
        check_expect({"tools": "plan_list"})
    with pytest.raises(TypeError, match="a count"):
        check_expect({"extensions": True})


def test_requirements_follow_markers_and_extras() -> None:
    reqs = parse_requirements([
        "Foo.Bar>=1", 'baz; python_version < "3"', 'qux; extra == "cli"', "typing_extensions[x]",
    ], extras=["cli"])
    assert [(r.name, r.extras) for r in reqs] == [("foo-bar", ()), ("qux", ()), ("typing-extensions", ("x",))]


def test_repacked_wheel_has_sources_unchecked_pycs_and_record(tmp_path: Path) -> None:
    import importlib.metadata as md
    import importlib.util

    wheel = repack(md.distribution("idna"), tmp_path)
    assert wheel.name.startswith(f"idna-{md.version('idna')}-")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "idna/core.py" in names
        record = z.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
        pycs = [n for n in names if n.endswith(".pyc")]
        for n in pycs:
            raw = z.read(n)
            assert raw[:4] == importlib.util.MAGIC_NUMBER and raw[4:8] == b"\x01\0\0\0"  # unchecked hash
            assert n in record
    assert "idna/core.py,sha256=" in record
    assert not any(n.endswith(("INSTALLER", "direct_url.json")) for n in names)
    assert repack(md.distribution("idna"), tmp_path) == wheel  # reused


def test_source_modules_sees_flat_and_src_layouts(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg" / "sub").mkdir(parents=True)
    for f in ("src/pkg/__init__.py", "src/pkg/sub/__init__.py", "src/pkg/sub/m.py", "top.py", "setup.py",
              "tests/test_x.py"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    assert source_modules(tmp_path) == {
        "pkg": "src/pkg/__init__.py", "pkg.sub": "src/pkg/sub/__init__.py", "pkg.sub.m": "src/pkg/sub/m.py",
        "top": "top.py",
    }
