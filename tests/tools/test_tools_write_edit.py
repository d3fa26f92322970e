"""The write and edit tools on real files: messages, parent dirs, unique matching, diffs."""

from __future__ import annotations

from pathlib import Path

import pytest
from builtin_tool_helpers import make, run

from autocue.agent import ToolArgumentsError
from autocue.tools import ToolError, generate_diff


async def test_write_creates_parents_and_counts_utf8_bytes(tmp_path: Path) -> None:
    tool = make("write", tmp_path)
    r = await run(tool, path="deep/er/hello.txt", content="Hello from pi fixtures!\n")
    assert r.text_content == "Successfully wrote 24 bytes to deep/er/hello.txt"
    assert (tmp_path / "deep/er/hello.txt").read_bytes() == b"Hello from pi fixtures!\n"
    r = await run(tool, path="deep/er/hello.txt", content="héllo\r\n")  # overwrite, bytes not chars
    assert r.text_content == "Successfully wrote 8 bytes to deep/er/hello.txt"
    assert (tmp_path / "deep/er/hello.txt").read_bytes() == "héllo\r\n".encode()


async def test_write_onto_directory_or_through_file_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    tool = make("write", tmp_path)
    with pytest.raises(ToolError, match=r"EISDIR.*Choose a file path"):
        await run(tool, path="d", content="x")
    with pytest.raises(ToolError, match="a file is in the way"):
        await run(tool, path="f/inner.txt", content="x")


async def test_edit_replaces_unique_text_with_pi_diff(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("Hello from pi fixtures!\n")
    r = await run(make("edit", tmp_path), path="hello.txt", oldText="Hello from pi fixtures!", newText="Hello, world!")
    assert r.text_content == "Successfully replaced text in hello.txt."
    assert r.details == {"diff": "-1 Hello from pi fixtures!\n+1 Hello, world!", "firstChangedLine": 1}
    assert (tmp_path / "hello.txt").read_text() == "Hello, world!\n"


async def test_edit_absent_text_leaves_file_alone(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(ToolError) as e:
        await run(make("edit", tmp_path), path="a.py", oldText="x = 2", newText="x = 3")
    assert str(e.value) == (
        "Could not find the exact text in a.py. The old text must match exactly including all whitespace and newlines."
    )
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


async def test_edit_ambiguous_text_counts_occurrences(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("v = 0\nv = 0\nw = 1\nv = 0\n")
    with pytest.raises(ToolError, match=r"^Found 3 occurrences of the text in a\.py\. The text must be unique"):
        await run(make("edit", tmp_path), path="a.py", oldText="v = 0", newText="v = 9")
    assert (tmp_path / "a.py").read_text() == "v = 0\nv = 0\nw = 1\nv = 0\n"


async def test_edit_identical_missing_file_and_empty_old(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("same")
    tool = make("edit", tmp_path)
    with pytest.raises(ToolError, match=r"No changes made to a\.txt"):
        await run(tool, path="a.txt", oldText="same", newText="same")
    with pytest.raises(ToolError, match=r"^File not found: nope\.txt$"):
        await run(tool, path="nope.txt", oldText="a", newText="b")
    with pytest.raises(ToolError, match="oldText must not be empty"):
        await run(tool, path="a.txt", oldText="", newText="b")


async def test_edit_keeps_crlf_and_bom(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    await run(make("edit", tmp_path), path="win.txt", oldText="two\nthree", newText="2\n3")
    assert f.read_bytes() == "\ufeffone\r\n2\r\n3\r\n".encode()


async def test_edit_multi_form_of_later_pi(tmp_path: Path) -> None:
    f = tmp_path / "m.txt"
    f.write_text("alpha\nbeta\ngamma\n")
    tool = make("edit", tmp_path)
    edits = [{"oldText": "gamma", "newText": "G"}, {"oldText": "alpha", "newText": "A"}]
    r = await run(tool, path="m.txt", edits=edits)
    assert r.text_content == "Successfully replaced 2 block(s) in m.txt."
    assert f.read_text() == "A\nbeta\nG\n"
    assert r.details["firstChangedLine"] == 1
    with pytest.raises(ToolError, match=r"edits\[0\] and edits\[1\] overlap"):
        await run(tool, path="m.txt", edits=[{"oldText": "A\nbe", "newText": "x"}, {"oldText": "beta", "newText": "y"}])
    with pytest.raises(ToolError, match=r"^edits\[1\]: Could not find"):
        await run(tool, path="m.txt", edits=[{"oldText": "A", "newText": "x"}, {"oldText": "zzz", "newText": "y"}])
    assert f.read_text() == "A\nbeta\nG\n"


def test_edit_arguments_validation() -> None:
    tool = make("edit", Path("."))
    assert tool.parameters["required"] == ["path", "oldText", "newText"]  # what the model is told (pi 0.58)
    with pytest.raises(ToolArgumentsError, match="missing required property 'newText'"):
        tool.validate({"path": "a", "oldText": "x"})
    with pytest.raises(ToolArgumentsError, match="either oldText/newText or edits"):
        tool.validate({"path": "a", "oldText": "x", "newText": "y", "edits": [{"oldText": "x", "newText": "y"}]})
    with pytest.raises(ToolArgumentsError, match="edits"):
        tool.validate({"path": "a", "edits": []})


def test_diff_shows_context_and_skips() -> None:
    old = "".join(f"l{i}\n" for i in range(1, 21))
    new = old.replace("l10\n", "TEN\n")
    diff, first = generate_diff(old, new)
    assert first == 10
    assert diff.split("\n") == [
        "    ...",
        "  6 l6",
        "  7 l7",
        "  8 l8",
        "  9 l9",
        "-10 l10",
        "+10 TEN",
        " 11 l11",
        " 12 l12",
        " 13 l13",
        " 14 l14",
        "    ...",
    ]
    diff, first = generate_diff("a\nb\n", "a\nb\nc\n")
    assert (diff, first) == (" 1 a\n 2 b\n+3 c", 3)
