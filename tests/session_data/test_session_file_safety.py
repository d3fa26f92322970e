"""Opening a session file that is missing, corrupted or hostile (issues 14 and 15).

Opening never creates a file, never rewrites one without keeping the original, and every
malformed file gives ``SessionFileError`` naming the file and line (a torn last line is the
one thing forgiven: see test_session_manager.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conformance import PI_SESSIONS

from autocue.session import SessionFileError, SessionFileNotFoundError
from autocue.session.manager import SessionManager
from autocue.session.session_dir import list_sessions

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
TS = "2026-01-01T00:00:01.000Z"


def _entry(eid: str, parent: str | None, **fields: object) -> str:
    d: dict[str, object] = {"type": "custom", "customType": "x", "id": eid, "parentId": parent, "timestamp": TS}
    d.update(fields)
    return json.dumps(d, separators=(",", ":")) + "\n"


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ---------------------------------------------------------------------------- a missing path


def test_open_of_a_missing_path_raises_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "typo.jsonl"
    with pytest.raises(SessionFileNotFoundError) as ei:
        SessionManager.open(missing)
    assert isinstance(ei.value, FileNotFoundError) and isinstance(ei.value, SessionFileError)
    assert ei.value.path == str(missing) and str(ei.value).startswith(f"{missing}: no such session file\n")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError):
        SessionManager.fork_from(missing, "/w", tmp_path)


def test_create_at_never_replaces_an_existing_file(tmp_path: Path) -> None:
    existing = tmp_path / "s.jsonl"
    existing.write_text(HEADER)
    with pytest.raises(SessionFileError, match=r"s\.jsonl: already exists; open it"):
        SessionManager.create_at(existing, "/w")
    assert existing.read_text() == HEADER


# ---------------------------------------------------------------------------- the header version


@pytest.mark.parametrize("version", ['"3"', "3.0", "true", "null", "0", "-1", '{"v":3}'])
def test_a_version_that_is_not_a_json_integer_is_an_error_and_nothing_is_rewritten(
    tmp_path: Path, version: str
) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text(HEADER.replace('"version":3', f'"version":{version}') + _entry("aaaaaaaa", None))
    before = _listing(tmp_path)
    with pytest.raises(SessionFileError, match=r's\.jsonl:1: session header "version" must be a JSON integer'):
        SessionManager.open(p)
    assert _listing(tmp_path) == before  # no migration, no rewrite, no backup


def test_migration_keeps_the_original_in_a_backup_that_never_overwrites_one(tmp_path: Path) -> None:
    v1 = ('{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}\n'
          '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z",'
          '"message":{"role":"user","content":"a","timestamp":1}}\n')
    p = tmp_path / "v1.jsonl"
    p.write_text(v1)
    (tmp_path / "v1.jsonl.bak").write_text("someone else's backup")
    sm = SessionManager.open(p)
    assert sm.warnings == [f"{p}: migrated from session version 1 to 3; the original is kept in {p}.bak.1"]
    assert (tmp_path / "v1.jsonl.bak").read_text() == "someone else's backup"
    assert (tmp_path / "v1.jsonl.bak.1").read_text() == v1
    assert json.loads(p.read_text().splitlines()[0])["version"] == 3
    assert sorted(x.name for x in tmp_path.iterdir()) == ["v1.jsonl", "v1.jsonl.bak", "v1.jsonl.bak.1"]
    again = SessionManager.open(p)  # a v3 file now: opened as it is
    assert again.warnings == [] and [m.role for m in again.build_session_context().messages] == ["user"]


# ---------------------------------------------------------------------------- the tree


def test_duplicate_ids_that_would_make_get_tree_loop_are_an_error_naming_the_line(tmp_path: Path) -> None:
    # a -> b -> a again: with "the later entry wins", get_tree() walked a -> b -> a -> ... forever
    p = tmp_path / "loop.jsonl"
    p.write_text(HEADER + _entry("aaaaaaaa", None) + _entry("bbbbbbbb", "aaaaaaaa") + _entry("aaaaaaaa", "bbbbbbbb"))
    with pytest.raises(SessionFileError, match=r"loop\.jsonl:4: entry id aaaaaaaa appears twice \(first on line 2\)"):
        SessionManager.open(p)


def test_an_entry_that_is_its_own_parent_is_a_cycle(tmp_path: Path) -> None:
    p = tmp_path / "self.jsonl"
    p.write_text(HEADER + _entry("aaaaaaaa", None) + _entry("bbbbbbbb", "bbbbbbbb"))
    with pytest.raises(SessionFileError, match=r"self\.jsonl:3: parentId cycle: entry bbbbbbbb is its own ancestor"):
        SessionManager.open(p)


def test_orphans_are_still_roots(tmp_path: Path) -> None:
    p = tmp_path / "orphan.jsonl"
    p.write_text(HEADER + _entry("aaaaaaaa", None) + _entry("bbbbbbbb", "cccccccc") + _entry("dddddddd", "bbbbbbbb"))
    tree = SessionManager.open(p).get_tree()
    assert [n.entry.id for n in tree] == ["aaaaaaaa", "bbbbbbbb"] and tree[1].children[0].entry.id == "dddddddd"


# ---------------------------------------------------------------------------- wrong JSON types


@pytest.mark.parametrize(("line", "error"), [
    (_entry("aaaaaaaa", None, timestamp=5), r':2: entry aaaaaaaa: "timestamp" must be a string, got 5'),
    (_entry("aaaaaaaa", None, type="thinking_level_change", thinkingLevel=["high"]),
     r':2: thinking_level_change entry aaaaaaaa: "thinkingLevel" must be a string, got \["high"\]'),
    (_entry("aaaaaaaa", None, type="model_change", provider="p", modelId=None),
     r':2: model_change entry aaaaaaaa: "modelId" must be a string, got null'),
    (_entry("aaaaaaaa", None, type="compaction", summary="s", firstKeptEntryId="x", tokensBefore="9"),
     r':2: compaction entry aaaaaaaa: "tokensBefore" must be a number, got "9"'),
    (_entry("aaaaaaaa", None, type="label", targetId="aaaaaaaa", label=7),
     r':2: label entry aaaaaaaa: "label" must be a string or null, got 7'),
    (_entry("aaaaaaaa", None, type="session_info", name={"n": 1}),
     r':2: session_info entry aaaaaaaa: "name" must be a string or null, got \{"n":1\}'),
    (_entry("aaaaaaaa", None, type="custom_message", customType="c", content=[1], display=True),
     r":2: custom_message entry aaaaaaaa: content\[0\]: a content block must be an object, got int"),
    (_entry("aaaaaaaa", None, type="branch_summary", fromId="x", summary="s", fromHook="yes"),
     r':2: branch_summary entry aaaaaaaa: "fromHook" must be true, false or null, got "yes"'),
    (_entry("aaaaaaaa", None, customType=None), r':2: custom entry aaaaaaaa: "customType" must be a string'),
    (_entry("aaaaaaaa", None, data=json.loads("[" * 900 + "]" * 900)) + _entry("bbbbbbbb", "aaaaaaaa"),
     None),  # deep but within JSON's limits: fine
    ('{"type":"custom","customType":"x","id":"aaaaaaaa","parentId":null,"timestamp":"t","data":'
     + "[" * 5000 + "]" * 5000 + "}\n" + _entry("bbbbbbbb", "aaaaaaaa"), r":2: corrupt line, not valid JSON"),
    ('{"type":"session","version":3,"id":"s2","timestamp":"t","cwd":"/w"}\n',
     r":2: a second session header inside the file"),
])
def test_wrong_types_are_a_session_file_error_naming_the_line(tmp_path: Path, line: str, error: str | None) -> None:
    p = tmp_path / "t.jsonl"
    p.write_text(HEADER + line)
    if error is None:
        SessionManager.open(p).get_tree()
        return
    with pytest.raises(SessionFileError, match=r"t\.jsonl" + error):
        SessionManager.open(p)


@pytest.mark.parametrize(("message", "error"), [
    ({"role": "user", "content": [{"type": "text", "text": 5}], "timestamp": 1},
     r'user message: content\[0\] \(text\): "text" must be a string, got int'),
    ({"role": "user", "content": ["hi"], "timestamp": 1},
     r"user message: content\[0\]: a content block must be an object, got str"),
    ({"role": "user", "content": "hi", "timestamp": "1"}, r'user message: "timestamp" must be'),
    ({"role": "assistant", "content": [], "usage": {"input": "10"}, "timestamp": 1},
     r'assistant message: usage: "input" must be'),
    ({"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "n", "arguments": [1]}],
      "timestamp": 1}, r'assistant message: content\[0\] \(toolCall\): "arguments" must be an object or null'),
    ({"role": "toolResult", "toolCallId": 3, "content": [], "timestamp": 1},
     r'toolResult message: "toolCallId" must be a string, got int'),
    ({"role": "bashExecution", "command": "ls", "output": "", "exitCode": True, "timestamp": 1},
     r'bashExecution message: "exitCode" must be an integer or null, got bool'),
])
def test_a_message_with_wrong_types_is_an_error_naming_the_line(
    tmp_path: Path, message: dict[str, object], error: str
) -> None:
    entry = {"type": "message", "id": "aaaaaaaa", "parentId": None, "timestamp": TS, "message": message}
    p = tmp_path / "m.jsonl"
    p.write_text(HEADER + json.dumps(entry) + "\n")
    with pytest.raises(SessionFileError, match=r"m\.jsonl:2: message entry aaaaaaaa: " + error):
        SessionManager.open(p).build_session_context()


def test_listing_skips_what_it_cannot_read_and_never_raises(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes((PI_SESSIONS / "anthropic-tools.jsonl").read_bytes())
    (tmp_path / "texts.jsonl").write_text(HEADER + json.dumps(
        {"type": "message", "id": "aaaaaaaa", "parentId": None, "timestamp": TS,
         "message": {"role": "user", "content": [{"type": "text", "text": 5}], "timestamp": 10**20}}) + "\n"
        + _entry("bbbbbbbb", "aaaaaaaa", type="session_info", name=["x"]))
    (tmp_path / "dir.jsonl").mkdir()
    infos = {Path(i.path).name: i for i in list_sessions(str(tmp_path))}
    assert sorted(infos) == ["good.jsonl", "texts.jsonl"]
    assert infos["texts.jsonl"].first_message == "(no messages)" and infos["texts.jsonl"].name is None
