"""The read tool on real files: lines, offset/limit, truncation notices, images, errors."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from builtin_tool_helpers import gif_bytes, jpeg_bytes, make, png_bytes, run, webp_bytes

from autocue.llm import ImageContent, TextContent
from autocue.llm.abort import AbortController
from autocue.tools import DEFAULT_MAX_BYTES, ToolError


async def test_reads_text_as_is(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("Hello from pi fixtures!\n")
    r = await run(make("read", tmp_path), path="hello.txt")
    assert r.text_content == "Hello from pi fixtures!\n"
    assert r.details is None


async def test_offset_and_limit_with_continue_notice(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("\n".join(f"line {i}" for i in range(1, 11)))
    tool = make("read", tmp_path)
    r = await run(tool, path="n.txt", offset=3, limit=2)
    assert r.text_content == "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    r = await run(tool, path="n.txt", offset=9)
    assert r.text_content == "line 9\nline 10"
    r = await run(tool, path="n.txt", offset=9.0, limit=5)  # JSON numbers may be floats
    assert r.text_content == "line 9\nline 10"


async def test_offset_beyond_end(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("a\nb")
    with pytest.raises(ToolError, match=r"^Offset 5 is beyond end of file \(2 lines total\)$"):
        await run(make("read", tmp_path), path="n.txt", offset=5)


async def test_line_truncation_notice_and_continuation(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("\n".join(f"L{i}" for i in range(1, 2501)))
    tool = make("read", tmp_path)
    r = await run(tool, path="big.txt")
    body, notice = r.text_content.split("\n\n")
    assert body.splitlines()[-1] == "L2000" and len(body.splitlines()) == 2000
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    assert r.details["truncation"]["truncatedBy"] == "lines"
    rest = await run(tool, path="big.txt", offset=2001)
    assert rest.text_content.splitlines()[0] == "L2001" and rest.text_content.endswith("L2500")


async def test_byte_truncation_keeps_whole_lines(tmp_path: Path) -> None:
    line = "x" * 99
    (tmp_path / "wide.txt").write_text("\n".join(line for _ in range(1000)))  # ~100 KB
    r = await run(make("read", tmp_path), path="wide.txt")
    body, notice = r.text_content.split("\n\n")
    kept = body.split("\n")
    assert all(x == line for x in kept)
    assert len(body.encode()) <= DEFAULT_MAX_BYTES
    assert notice == f"[Showing lines 1-{len(kept)} of 1000 (50.0KB limit). Use offset={len(kept) + 1} to continue.]"


async def test_first_line_over_limit_points_to_bash(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("y" * (DEFAULT_MAX_BYTES + 10) + "\nshort")
    r = await run(make("read", tmp_path), path="min.js")
    assert r.text_content == "[Line 1 is 50.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"
    assert r.details["truncation"]["firstLineExceedsLimit"] is True


async def test_missing_file_and_directory_errors(tmp_path: Path) -> None:
    tool = make("read", tmp_path)
    with pytest.raises(ToolError) as e:
        await run(tool, path="missing.txt")
    assert str(e.value) == f"ENOENT: no such file or directory, access '{tmp_path / 'missing.txt'}'"
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"EISDIR: illegal operation on a directory.*Use ls"):
        await run(tool, path="d")
    with pytest.raises(ToolError, match="limit must be at least 1"):
        await run(tool, path="d", limit=0)


@pytest.mark.parametrize(
    ("name", "data", "mime"),
    [
        ("pic.png", png_bytes(), "image/png"),
        ("pic.jpg", jpeg_bytes(), "image/jpeg"),
        ("pic.gif", gif_bytes(), "image/gif"),
        ("pic.webp", webp_bytes(), "image/webp"),
        ("no-extension", png_bytes(3, 1), "image/png"),  # detected by content, not by name
    ],
)
async def test_images_become_image_content(tmp_path: Path, name: str, data: bytes, mime: str) -> None:
    (tmp_path / name).write_bytes(data)
    r = await run(make("read", tmp_path), path=name)
    assert isinstance(r.content[0], TextContent) and r.content[0].text == f"Read image file [{mime}]"
    img = r.content[1]
    assert isinstance(img, ImageContent) and img.mime_type == mime
    assert base64.b64decode(img.data) == data


async def test_image_name_with_text_content_reads_as_text(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not an image")
    r = await run(make("read", tmp_path), path="fake.png")
    assert r.content == [TextContent("not an image")]


async def test_paths_absolute_home_and_at_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("home file")
    monkeypatch.setenv("HOME", str(home))
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "abs.txt").write_text("absolute")
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "rel.txt").write_text("relative")
    tool = make("read", work)
    assert (await run(tool, path="~/notes.txt")).text_content == "home file"
    assert (await run(tool, path=str(other / "abs.txt"))).text_content == "absolute"
    assert (await run(tool, path="@sub/rel.txt")).text_content == "relative"
    assert (await run(tool, path="sub/../sub/rel.txt")).text_content == "relative"
    assert (await run(tool, path="../elsewhere/abs.txt")).text_content == "absolute"


async def test_aborted_signal_stops_before_reading(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    c = AbortController()
    c.abort()
    with pytest.raises(ToolError, match="Operation aborted"):
        await run(make("read", tmp_path), signal=c.signal, path="a.txt")
