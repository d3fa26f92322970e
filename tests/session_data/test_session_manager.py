"""SessionManager: writing (lazy, flushed, pi schema), loading errors, the tree, branching, listing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

from autocue.llm import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from autocue.session import file_reader
from autocue.session.entries import CompactionEntry, LabelEntry, MessageEntry
from autocue.session.errors import EntryNotFoundError, SessionFileError, SessionFileNotFoundError
from autocue.session.manager import SessionManager
from autocue.session.messages import BashExecutionMessage, CompactionSummaryMessage, CustomMessage
from autocue.session.session_context import build_session_context
from autocue.session.session_dir import default_session_dir, session_dir_slug, uuid7

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HEX8 = re.compile(r"^[0-9a-f]{8}$")


def _assistant(text: str = "ok", **kw: object) -> AssistantMessage:
    return AssistantMessage([TextContent(text)], api="anthropic-messages", provider="p", model="m",
                            usage=Usage.of(10, 2), timestamp=1, **kw)  # type: ignore[arg-type]


def _lines(path: str | None) -> list[dict[str, object]]:
    assert path is not None
    return [orjson.loads(x) for x in Path(path).read_bytes().splitlines()]


# ---------------------------------------------------------------------------- writing


def test_lazy_first_write_then_each_append_is_on_disk(tmp_path: Path) -> None:
    d = tmp_path / "sessions" / "here"
    sm = SessionManager.create(tmp_path, d)
    sm.append_model_change("p", "m")
    sm.append_thinking_level_change("off")
    sm.append_message(UserMessage("hi", timestamp=1))
    path = sm.get_session_file()
    assert path is not None and not os.path.exists(path)
    assert not d.exists()  # not even the directory before the first assistant message
    sm.append_message(_assistant())
    lines = _lines(path)
    assert [x["type"] for x in lines] == ["session", "model_change", "thinking_level_change", "message", "message"]
    sm.append_custom_entry("state", {"n": 1})
    assert len(_lines(path)) == 6  # written at once, no close needed
    sm.close()


def test_written_file_follows_pi_schema(tmp_path: Path) -> None:
    sm = SessionManager.create("/work/some proj", tmp_path)
    a = sm.append_message(UserMessage([TextContent("héllo ✓")], timestamp=5))
    b = sm.append_message(AssistantMessage([ToolCall("toolu_1", "read", {"path": "x"})], api="anthropic-messages",
                                           provider="p", model="m", stop_reason="toolUse", timestamp=6))
    sm.append_message(ToolResultMessage("toolu_1", "read", [TextContent("data")], timestamp=7))
    raw = Path(sm.get_session_file() or "").read_bytes()
    assert "héllo ✓".encode() in raw  # not \u-escaped
    assert b", " not in raw.split(b"\n")[0] and b'": ' not in raw  # compact separators
    header, *entries = _lines(sm.get_session_file())
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and header["cwd"] == "/work/some proj"
    assert re.match(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", str(header["id"]))
    assert ISO.match(str(header["timestamp"]))
    name = os.path.basename(sm.get_session_file() or "")
    assert name == str(header["timestamp"]).replace(":", "-").replace(".", "-") + f"_{header['id']}.jsonl"
    assert [list(e) for e in entries] == [["type", "id", "parentId", "timestamp", "message"]] * 3
    assert entries[0]["parentId"] is None and entries[1]["parentId"] == a and entries[2]["parentId"] == b
    for e in entries:
        assert HEX8.match(str(e["id"])) and ISO.match(str(e["timestamp"]))
    assert entries[1]["message"] == {"role": "assistant", "content": [{"type": "toolCall", "id": "toolu_1",
        "name": "read", "arguments": {"path": "x"}}], "api": "anthropic-messages", "provider": "p", "model": "m",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse", "timestamp": 6}
    sm.close()


def test_every_append_kind_round_trips_through_a_file(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    u = sm.append_message(UserMessage("go", timestamp=1))
    sm.append_message(_assistant())
    sm.append_message(BashExecutionMessage("ls", "x\n", 0, False, False, timestamp=3))
    sm.append_message(CustomMessage("ext", "note", True, {"k": 1}, timestamp=4))
    sm.append_custom_message_entry("ext", [TextContent("in context")], False, {"d": 2})
    sm.append_custom_entry("ext-state")
    sm.append_session_info("  My session  ")
    sm.append_label_change(u, "first")
    c = sm.append_compaction("sum", u, 123, {"readFiles": [], "modifiedFiles": []})
    sm.append_label_change(u, None)
    sm.close()
    again = SessionManager.open(sm.get_session_file() or "")
    assert again.get_session_name() == "My session"
    assert again.get_label(u) is None
    comp = again.get_entry(c)
    assert isinstance(comp, CompactionEntry) and comp.from_hook is False and comp.tokens_before == 123
    assert [e.to_json() for e in again.get_entries()] == [e.to_json() for e in sm.get_entries()]
    lines = Path(sm.get_session_file() or "").read_bytes().splitlines()
    assert orjson.loads(lines[-1]) == {"type": "label", "id": orjson.loads(lines[-1])["id"], "parentId": c,
                                       "timestamp": orjson.loads(lines[-1])["timestamp"], "targetId": u}
    custom = orjson.loads(lines[6])
    assert list(custom) == ["type", "customType", "id", "parentId", "timestamp"]  # pi's order, no data
    cm = orjson.loads(lines[5])
    assert list(cm) == ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"]
    ctx = again.build_session_context()
    assert [m.role for m in ctx.messages] == ["compactionSummary", "user", "assistant", "bashExecution", "custom",
                                              "custom"]
    assert isinstance(ctx.messages[0], CompactionSummaryMessage)


def test_in_memory_never_touches_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "home"))
    sm = SessionManager.in_memory(tmp_path)
    sm.append_message(UserMessage("x"))
    sm.append_message(_assistant())
    assert not sm.is_persisted() and sm.get_session_file() is None and sm.get_session_dir() == ""
    assert not (tmp_path / "home").exists()
    assert len(sm.build_session_context().messages) == 2
    assert sm.create_branched_session(sm.get_leaf_id() or "") is None


def test_default_location_uses_autocue_dir_and_pi_slug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "ac"))
    assert session_dir_slug("/home/u/my:proj") == "--home-u-my-proj--"
    assert session_dir_slug("C:\\work\\x") == "--C--work-x--"
    assert default_session_dir("/a/b") == str(tmp_path / "ac" / "sessions" / "--a-b--")
    sm = SessionManager.create("/a/b")
    assert sm.get_session_dir() == str(tmp_path / "ac" / "sessions" / "--a-b--")
    sm.append_message(UserMessage("x"))
    sm.append_message(_assistant())
    assert Path(sm.get_session_file() or "").parent == tmp_path / "ac" / "sessions" / "--a-b--"
    sm.close()


def test_new_session_and_ids(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    first = sm.get_session_file()
    sm.append_message(UserMessage("x"))
    path = sm.new_session(id="fixed-id", parent_session=first)
    assert path is not None and path.endswith("_fixed-id.jsonl") and path != first
    assert sm.get_entries() == [] and sm.get_leaf_id() is None and sm.get_session_id() == "fixed-id"
    assert sm.get_header().parent_session == first
    ids = {uuid7() for _ in range(50)}
    assert len(ids) == 50


def test_append_message_rejects_summary_roles() -> None:
    sm = SessionManager.in_memory()
    with pytest.raises(ValueError, match="append_compaction"):
        sm.append_message(CompactionSummaryMessage("s", 1))


# ---------------------------------------------------------------------------- loading errors


def _write_pi_file(tmp_path: Path) -> Path:
    src = (FIXTURES / "handmade-tree.jsonl").read_bytes()
    p = tmp_path / "s.jsonl"
    p.write_bytes(src)
    return p


def test_torn_last_line_is_skipped_reported_and_cut_before_the_next_write(tmp_path: Path) -> None:
    p = _write_pi_file(tmp_path)
    good = p.read_bytes()
    n = good.count(b"\n")
    p.write_bytes(good + b'{"type":"message","id":"zz","parentId":"a00')
    sm = SessionManager.open(p)
    assert len(sm.warnings) == 1 and f"{p}:{n + 1}:" in sm.warnings[0] and "torn" in sm.warnings[0]
    assert sm.get_leaf_id() == "a0000010"
    new_id = sm.append_message(UserMessage("after the tear", timestamp=9))
    sm.close()
    data = p.read_bytes()
    assert data.startswith(good) and data.count(b"\n") == n + 1  # torn bytes replaced by the new entry
    again = SessionManager.open(p)
    assert again.warnings == [] and again.get_leaf_id() == new_id


def test_corrupt_line_in_the_middle_raises_naming_file_and_line(tmp_path: Path) -> None:
    p = _write_pi_file(tmp_path)
    lines = p.read_bytes().splitlines()
    lines[4] = lines[4][:40]
    p.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(SessionFileError) as ei:
        SessionManager.open(p)
    assert ei.value.line == 5 and ei.value.path == str(p)
    assert f"{p}:5: corrupt line" in str(ei.value)


def test_invalid_entry_shape_names_line(tmp_path: Path) -> None:
    p = _write_pi_file(tmp_path)
    lines = p.read_bytes().splitlines()
    lines[2] = b'{"type":"model_change","parentId":null}'
    p.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(SessionFileError, match=r":3: model_change entry has no string \"id\""):
        SessionManager.open(p)


def test_malformed_message_is_reported_with_its_line_when_read(tmp_path: Path) -> None:
    p = tmp_path / "m.jsonl"
    p.write_bytes(
        b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
        b'{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        b'"message":{"role":"toolResult","content":[]}}\n')
    sm = SessionManager.open(p)
    with pytest.raises(SessionFileError, match=r"m\.jsonl:2: message entry aaaaaaaa: toolResult message is missing"):
        sm.build_session_context()


@pytest.mark.parametrize("first", [b'{"type":"message","id":"a","parentId":null}', b'{"type":"session"}', b"[1]"])
def test_missing_or_invalid_header_raises(tmp_path: Path, first: bytes) -> None:
    p = tmp_path / "h.jsonl"
    p.write_bytes(first + b"\n" + b'{"type":"label","id":"b","parentId":null,"timestamp":"t","targetId":"a"}\n')
    with pytest.raises(SessionFileError, match=r"h\.jsonl:1: missing or invalid session header"):
        SessionManager.open(p)


def test_create_at_starts_a_new_session_in_that_file_and_an_empty_file_opens_as_new(tmp_path: Path) -> None:
    p = tmp_path / "new.jsonl"
    sm = SessionManager.create_at(p, "/w")
    assert sm.get_session_file() == str(p) and sm.get_entries() == [] and sm.get_cwd() == "/w"
    sm.append_message(UserMessage("x"))
    assert not p.exists()
    sm.append_message(_assistant())
    assert [x["type"] for x in _lines(str(p))] == ["session", "message", "message"]
    sm.close()
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n\n")
    sm2 = SessionManager.open(blank)
    sm2.append_message(_assistant())
    sm2.close()
    assert [x["type"] for x in _lines(str(blank))] == ["session", "message"]


def test_file_without_final_newline_gets_one_before_appending(tmp_path: Path) -> None:
    p = _write_pi_file(tmp_path)
    p.write_bytes(p.read_bytes().rstrip(b"\n"))
    sm = SessionManager.open(p)
    assert sm.warnings == []
    sm.append_custom_entry("x")
    sm.close()
    assert SessionManager.open(p).get_leaf_entry().type == "custom"  # type: ignore[union-attr]


def test_v1_file_is_migrated_and_rewritten(tmp_path: Path) -> None:
    p = tmp_path / "v1.jsonl"
    p.write_bytes(
        b'{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
        b'{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}\n'
        b'{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"h",'
        b'"content":"b","display":true,"timestamp":2}}\n'
        b'{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":2,'
        b'"tokensBefore":9}\n')
    sm = SessionManager.open(p)
    entries = sm.get_entries()
    assert entries[0].parent_id is None and entries[1].parent_id == entries[0].id
    comp = entries[2]
    assert isinstance(comp, CompactionEntry) and comp.first_kept_entry_id == entries[1].id
    assert [m.role for m in sm.build_session_context().messages] == ["compactionSummary", "custom"]
    header = _lines(str(p))[0]
    assert header["version"] == 3
    assert orjson.loads(p.read_bytes().splitlines()[2])["message"]["role"] == "custom"


# ---------------------------------------------------------------------------- tree and branching


def test_branching_navigation_and_branched_session(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    u1 = sm.append_message(UserMessage("one", timestamp=1))
    a1 = sm.append_message(_assistant("r1"))
    u2 = sm.append_message(UserMessage("two", timestamp=2))
    a2 = sm.append_message(_assistant("r2"))
    sm.append_label_change(u1, "start")
    sm.branch(a1)
    assert sm.get_leaf_id() == a1
    u3 = sm.append_message(UserMessage("two-bis", timestamp=3))
    assert sm.get_entry(u3).parent_id == a1  # type: ignore[union-attr]
    assert {e.id for e in sm.get_children(a1)} == {u2, u3}
    assert [e.id for e in sm.get_branch()] == [u1, a1, u3]
    assert [e.id for e in sm.get_branch(a2)] == [u1, a1, u2, a2]
    assert [m.role for m in sm.build_session_context().messages] == ["user", "assistant", "user"]

    sid = sm.branch_with_summary(u1, "left the first answer")
    assert sm.get_entry(sid).parent_id == u1  # type: ignore[union-attr]
    assert [m.role for m in sm.build_session_context().messages] == ["user", "branchSummary"]

    sm.reset_leaf()
    assert sm.build_session_context().messages == []
    root2 = sm.append_message(UserMessage("new root", timestamp=4))
    assert sm.get_entry(root2).parent_id is None and len(sm.get_tree()) == 2

    with pytest.raises(EntryNotFoundError, match="Entry nope not found"):
        sm.branch("nope")
    with pytest.raises(EntryNotFoundError):
        sm.append_label_change("nope", "x")
    with pytest.raises(EntryNotFoundError):
        sm.get_branch("nope")

    old_file = sm.get_session_file()
    new_file = sm.create_branched_session(a2)
    assert new_file is not None and new_file != old_file
    lines = _lines(new_file)
    assert lines[0]["parentSession"] == old_file
    assert [x["id"] for x in lines[1:5]] == [u1, a1, u2, a2]
    assert lines[5]["type"] == "label" and lines[5]["targetId"] == u1 and lines[5]["parentId"] == a2
    assert sm.get_label(u1) == "start" and sm.get_session_file() == new_file
    assert len(sm.get_entries()) == 5
    sm.close()


def test_get_tree_sorts_children_by_timestamp_and_resolves_labels() -> None:
    sm = SessionManager.open(FIXTURES / "handmade-tree.jsonl")
    tree = sm.get_tree()
    node = tree[0]
    seen = []
    while node.children:
        seen.append(node.entry.id)
        if len(node.children) > 1:
            ts = [c.entry.timestamp for c in node.children]
            assert ts == sorted(ts)
        node = node.children[0]
    assert "a0000004" in seen


def test_label_entries_do_not_change_context() -> None:
    sm = SessionManager.in_memory()
    u = sm.append_message(UserMessage("x", timestamp=1))
    before = [m.role for m in sm.build_session_context().messages]
    lid = sm.append_label_change(u, "L")
    assert isinstance(sm.get_entry(lid), LabelEntry)
    assert [m.role for m in sm.build_session_context().messages] == before


# ---------------------------------------------------------------------------- listing


def test_list_and_continue_recent(tmp_path: Path) -> None:
    d = tmp_path / "d"
    a = SessionManager.create("/w", d)
    a.append_message(UserMessage("first session", timestamp=1000))
    a.append_message(_assistant("a"))
    a.append_session_info("Alpha")
    a.close()
    b = SessionManager.create("/w", d)
    b.append_message(UserMessage("second session", timestamp=5000))
    b.append_message(_assistant("b"))
    b.close()
    os.utime(a.get_session_file() or "", (1, 1))
    (d / "junk.jsonl").write_text("not json\n")
    infos = SessionManager.list("/w", d)
    assert {i.path for i in infos} == {a.get_session_file(), b.get_session_file()}
    alpha = next(i for i in infos if i.path == a.get_session_file())
    assert alpha.name == "Alpha" and alpha.first_message == "first session" and alpha.message_count == 2
    recent = SessionManager.continue_recent("/w", d)
    assert recent.get_session_file() == b.get_session_file()
    assert isinstance(recent.get_leaf_entry(), MessageEntry)
    empty = SessionManager.continue_recent("/w", tmp_path / "none")
    assert empty.get_entries() == []


def test_fork_from_copies_history_under_new_header(tmp_path: Path) -> None:
    sm = SessionManager.fork_from(FIXTURES / "handmade-compaction.jsonl", "/elsewhere", tmp_path)
    assert sm.get_cwd() == "/elsewhere"
    assert sm.get_header().parent_session == str(FIXTURES / "handmade-compaction.jsonl")
    assert len(sm.get_entries()) == 13
    assert sm.build_session_context().messages[0].role == "compactionSummary"


def test_parent_cycle_is_reported_not_looped(tmp_path: Path) -> None:
    p = tmp_path / "cycle.jsonl"
    p.write_bytes(
        b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
        b'{"type":"custom","customType":"a","id":"aaaaaaaa","parentId":"bbbbbbbb","timestamp":"t"}\n'
        b'{"type":"custom","customType":"b","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"t"}\n')
    with pytest.raises(SessionFileError, match=r"cycle\.jsonl:2: parentId cycle: entry aaaaaaaa is its own ancestor "
                       r"\(aaaaaaaa → bbbbbbbb → aaaaaaaa\)"):
        SessionManager.open(p)


def test_duplicate_ids_are_reported(tmp_path: Path) -> None:
    p = tmp_path / "dup.jsonl"
    p.write_bytes(
        b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
        b'{"type":"custom","customType":"a","id":"aaaaaaaa","parentId":null,"timestamp":"t"}\n'
        b'{"type":"custom","customType":"b","id":"aaaaaaaa","parentId":null,"timestamp":"t"}\n')
    with pytest.raises(SessionFileError, match=r"dup\.jsonl:3: entry id aaaaaaaa appears twice \(first on line 2\)"):
        SessionManager.open(p)


def test_set_session_file_switches_sessions(tmp_path: Path) -> None:
    a = SessionManager.create(tmp_path, tmp_path)
    a.append_message(UserMessage("in a", timestamp=1))
    a.append_message(_assistant())
    a.close()
    b = SessionManager.in_memory(tmp_path)
    b.append_message(UserMessage("in b", timestamp=2))
    sm = SessionManager.create(tmp_path, tmp_path)
    sm.set_session_file(a.get_session_file() or "")
    assert sm.get_session_id() == a.get_session_id()
    assert [m.text for m in sm.build_session_context().messages] == ["in a", "ok"]  # type: ignore[union-attr]
    with pytest.raises(SessionFileNotFoundError, match=r"fresh\.jsonl: no such session file"):
        sm.set_session_file(tmp_path / "fresh.jsonl")
    assert sm.get_session_file() == a.get_session_file() and not (tmp_path / "fresh.jsonl").exists()


def test_undecodable_tool_output_is_written_as_escapes(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    sm.append_message(_assistant())
    bad = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")  # lone surrogates, as from a binary file
    sm.append_message(ToolResultMessage("c", "read", [TextContent(bad)], timestamp=1))
    sm.close()
    raw = Path(sm.get_session_file() or "").read_bytes()
    assert b'"caf\\udce9 \\udcff"' in raw
    again = SessionManager.open(sm.get_session_file() or "")
    assert again.build_session_context().messages[-1].text == "caf\udce9 \udcff"  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- fast loading


def _walked(sm: SessionManager) -> list[object]:
    """The context by the generic leaf → root walk (no linear shortcut)."""
    return build_session_context(sm.get_entries(), sm.get_leaf_id()).messages


def test_linear_shortcut_gives_the_walked_context_through_appends_and_branches(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    first = sm.append_message(UserMessage("one", timestamp=1))
    sm.append_message(_assistant("two"))
    sm.append_message(UserMessage("three", timestamp=3))
    sm.close()
    again = SessionManager.open(sm.get_session_file() or "")
    for step in ("open", "append", "branch", "append after branch", "reset", "append as new root"):
        if step == "append":
            again.append_message(_assistant("four"))
        elif step == "branch":
            again.branch(first)
        elif step == "append after branch":
            again.append_message(UserMessage("other way", timestamp=5))
        elif step == "reset":
            again.reset_leaf()
        elif step == "append as new root":
            again.append_message(UserMessage("new root", timestamp=6))
        ctx = again.build_session_context().messages
        assert ctx == _walked(again), step
        assert [e.id for e in again.get_branch()] == _branch_ids(again), step
    texts = [m.text for m in again.build_session_context().messages]  # type: ignore[union-attr]
    assert texts == ["new root"]
    again.branch(first)
    assert [m.text for m in again.build_session_context().messages] == ["one"]  # type: ignore[union-attr]


def _branch_ids(sm: SessionManager) -> list[str]:
    by_id = {e.id: e for e in sm.get_entries()}
    out: list[str] = []
    cur = sm.get_leaf_id()
    while cur is not None and cur in by_id:
        out.append(cur)
        cur = by_id[cur].parent_id
    return out[::-1]


def test_get_branch_of_a_linear_session_is_a_copy(tmp_path: Path) -> None:
    sm = SessionManager.in_memory(tmp_path)
    sm.append_message(UserMessage("one", timestamp=1))
    branch = sm.get_branch()
    branch.clear()
    assert len(sm.get_branch()) == 1 and len(sm.get_entries()) == 1


def test_malformed_message_compacted_away_is_not_an_error(tmp_path: Path) -> None:
    head = b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
    bad = (b'{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
           b'"message":{"role":"toolResult","content":[]}}\n')
    kept = (b'{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2026-01-01T00:00:00.000Z",'
            b'"message":{"role":"user","content":"kept","timestamp":1}}\n')
    comp = (b'{"type":"compaction","id":"cccccccc","parentId":"bbbbbbbb","timestamp":"2026-01-01T00:00:01.000Z",'
            b'"summary":"S","firstKeptEntryId":"bbbbbbbb","tokensBefore":5}\n')
    p = tmp_path / "c.jsonl"
    p.write_bytes(head + bad + kept + comp)
    sm = SessionManager.open(p)
    ctx = sm.build_session_context().messages
    assert [type(m) for m in ctx] == [CompactionSummaryMessage, UserMessage]
    # the same malformed entry inside the kept part is reported with its line
    p.write_bytes(head + bad + kept + comp.replace(b'"firstKeptEntryId":"bbbbbbbb"', b'"firstKeptEntryId":"aaaaaaaa"'))
    with pytest.raises(SessionFileError, match=r"c\.jsonl:2: message entry aaaaaaaa"):
        SessionManager.open(p).build_session_context()


def test_loaded_message_entry_decodes_its_line_on_demand(tmp_path: Path) -> None:
    sm = SessionManager.create(tmp_path, tmp_path)
    sm.append_message(_assistant("hi"))
    sm.close()
    path = sm.get_session_file() or ""
    line = Path(path).read_bytes().splitlines()[1]
    entry = SessionManager.open(path).get_entries()[0]
    assert isinstance(entry, MessageEntry)
    assert entry.raw == orjson.loads(line) and entry.raw is entry.raw  # decoded once, then kept
    assert entry.message_json == orjson.loads(line)["message"]
    assert orjson.dumps(entry.to_json()) == line
    assert entry.message == _assistant("hi")


def test_entry_ids_are_unique_8_hex_digits_and_a_taken_id_is_never_reused() -> None:
    sm = SessionManager.in_memory("/w")
    ids = [sm.append_message(UserMessage(f"m{i}", timestamp=i)) for i in range(600)]  # several id batches
    assert len(set(ids)) == 600 and all(HEX8.match(i) for i in ids)
    file_reader._id_pool.append(ids[0])  # the next drawn id collides with an existing entry: it is skipped
    fresh = sm.append_custom_entry("x")
    assert fresh != ids[0] and HEX8.match(fresh)


def test_sessions_in_several_threads_draw_entry_ids_from_the_shared_pool_at_once() -> None:
    import sys
    import threading

    managers = [SessionManager.in_memory("/w") for _ in range(8)]
    errors: list[BaseException] = []
    start = threading.Barrier(len(managers))

    def append_many(sm: SessionManager) -> None:
        start.wait()
        try:
            for i in range(20_000):
                sm.append_custom_entry("x", i)
        except BaseException as e:  # reported below
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: empty-pool races show up
    try:
        threads = [threading.Thread(target=append_many, args=(sm,)) for sm in managers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    for sm in managers:
        ids = [e.id for e in sm.get_entries()]
        assert len(ids) == len(set(ids)) == 20_000 and all(HEX8.match(i) for i in ids)


def test_entry_timestamps_track_the_clock_to_the_millisecond(monkeypatch: pytest.MonkeyPatch) -> None:
    import time as time_mod

    sm = SessionManager.in_memory("/w")
    clock = [1_700_000_000.0005]
    monkeypatch.setattr(time_mod, "time", lambda: clock[0])
    first = sm.get_entry(sm.append_custom_entry("a"))
    clock[0] = 1_700_000_000.9995
    second = sm.get_entry(sm.append_custom_entry("b"))
    clock[0] = 1_700_000_001.25
    third = sm.get_entry(sm.append_custom_entry("c"))
    assert first is not None and second is not None and third is not None
    assert [first.timestamp, second.timestamp, third.timestamp] == [
        "2023-11-14T22:13:20.000Z", "2023-11-14T22:13:20.999Z", "2023-11-14T22:13:21.250Z"]
