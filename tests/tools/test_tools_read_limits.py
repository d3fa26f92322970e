"""read: regular files only (a FIFO never blocks), bounded memory for huge files, capped images."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from builtin_tool_helpers import make, png_bytes, run
from hypothesis import given
from hypothesis import strategies as st

from autocue.llm import ImageContent
from autocue.tools import DEFAULT_MAX_BYTES, ToolError, format_size, linescan, truncate_head
from autocue.tools.read import MAX_IMAGE_BYTES


async def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def unblock() -> None:  # if the tool opened the FIFO for reading, this lets the test end anyway
        time.sleep(3)
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK) if _has_reader(fifo) else None
        if fd is not None:
            os.close(fd)

    threading.Thread(target=unblock, daemon=True).start()
    t0 = time.monotonic()
    with pytest.raises(ToolError) as ei:
        await run(make("read", tmp_path), path="pipe")
    assert time.monotonic() - t0 < 2.0
    assert str(ei.value) == (
        f"'{fifo}' is a FIFO (named pipe), not a regular file: read only reads regular files. "
        "Use bash (for example head -c) if you really mean to read from it."
    )


def _has_reader(fifo: Path) -> bool:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False


async def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^'/dev/zero' is a character device, not a regular file"):
        await run(make("read", tmp_path), path="/dev/zero")


async def test_a_directory_still_says_eisdir(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match=r"^EISDIR: illegal operation on a directory, read '.*d'\. Use ls"):
        await run(make("read", tmp_path), path="d")


_MEASURE = """
import asyncio, json, sys, tracemalloc
from autocue.llm.abort import AbortController
from autocue.tools import create_read_tool
tool = create_read_tool(sys.argv[1])
tracemalloc.start()
r = asyncio.run(tool.execute("c", {"path": sys.argv[2]}, AbortController().signal, lambda u: None))
peak = tracemalloc.get_traced_memory()[1]
kinds = [type(c).__name__ for c in r.content]
print(json.dumps({"peak": peak, "text": r.content[0].text[-300:], "kinds": kinds, "details": r.details}))
"""


def _measure(tmp_path: Path, name: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(tmp_path), name], capture_output=True, text=True,
                         timeout=110)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_a_1gb_file_is_read_with_bounded_memory(tmp_path: Path) -> None:
    with open(tmp_path / "big.txt", "wb") as f:
        f.write(b"".join(b"line %d\n" % i for i in range(1, 3001)))
        f.truncate(1 << 30)  # sparse: the rest is one long line of NUL bytes
    got = _measure(tmp_path, "big.txt")
    assert got["peak"] < 16 * 1024 * 1024, got["peak"]
    assert str(got["text"]).endswith("[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]")
    details = got["details"]
    assert isinstance(details, dict)
    assert details["truncation"]["totalLines"] == 3001
    assert details["truncation"]["totalBytes"] == 1 << 30


@pytest.mark.slow
def test_a_huge_image_is_not_encoded(tmp_path: Path) -> None:
    with open(tmp_path / "huge.png", "wb") as f:
        f.write(png_bytes())
        f.truncate(300 * 1024 * 1024)
    got = _measure(tmp_path, "huge.png")
    assert got["peak"] < 16 * 1024 * 1024, got["peak"]
    assert got["kinds"] == ["TextContent"]
    assert got["text"] == (
        "Read image file [image/png]\n[Image omitted: the file is 300.0MB, over the 5.0MB limit for an attached "
        "image. Make a smaller copy (for example with bash) and read that.]"
    )
    assert got["details"] == {"imageOmitted": True, "size": 300 * 1024 * 1024, "maxImageBytes": MAX_IMAGE_BYTES}


async def test_an_image_at_the_limit_is_still_attached(tmp_path: Path) -> None:
    with open(tmp_path / "edge.png", "wb") as f:
        f.write(png_bytes())
        f.truncate(MAX_IMAGE_BYTES)
    r = await run(make("read", tmp_path), path="edge.png")
    assert isinstance(r.content[1], ImageContent)


async def test_a_huge_first_line_reports_its_real_size(tmp_path: Path) -> None:
    with open(tmp_path / "one.txt", "wb") as f:
        f.truncate(3 * 1024 * 1024)
    r = await run(make("read", tmp_path), path="one.txt")
    assert r.text_content == (
        f"[Line 1 is 3.0MB, exceeds 50.0KB limit. Use bash: sed -n '1p' one.txt | head -c {DEFAULT_MAX_BYTES}]"
    )


def _reference(text: str, offset: int | None, limit: int | None) -> tuple[str, object] | str:
    """The read tool's text output computed the simple way, on the whole file in memory."""
    lines = text.split("\n")
    total = len(lines)
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        return f"Offset {offset} is beyond end of file ({total} lines total)"
    end = min(start + limit, total) if limit is not None else total
    tr = truncate_head("\n".join(lines[start:end]))
    first = start + 1
    if tr.first_line_exceeds_limit:
        size = format_size(len(lines[start].encode("utf-8")))
        return f"[Line {first} is {size}, exceeds 50.0KB limit. Use bash: sed -n '{first}p' f.txt | head -c 51200]", \
            tr.to_json()
    if tr.truncated:
        last = first + tr.output_lines - 1
        note = "" if tr.truncated_by == "lines" else " (50.0KB limit)"
        return f"{tr.content}\n\n[Showing lines {first}-{last} of {total}{note}. Use offset={last + 1} to continue.]", \
            tr.to_json()
    if limit is not None and end < total:
        return f"{tr.content}\n\n[{total - end} more lines in file. Use offset={end + 1} to continue.]", None
    return tr.content, None


line = st.one_of(st.sampled_from(["", "a", "héllo", "x" * 40]), st.text(alphabet="ab\u00e9", max_size=8),
                 st.just("y" * 30_000), st.just("z" * 60_000))


@pytest.mark.slow
@given(
    lines=st.lists(line, max_size=60),
    offset=st.none() | st.integers(1, 70),
    limit=st.none() | st.integers(1, 70),
    chunk=st.sampled_from([5, 64, 4096, 1 << 20]),
    many=st.booleans(),
)
async def test_streaming_agrees_with_reading_the_whole_file(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], offset: int | None, limit: int | None, chunk: int,
    many: bool,
) -> None:
    text = "\n".join(lines * (40 if many else 1))
    d = tmp_path_factory.mktemp("r")
    (d / "f.txt").write_bytes(text.encode())
    expected = _reference(text, offset, limit)
    old = linescan.CHUNK_SIZE
    linescan.CHUNK_SIZE = chunk
    try:
        params: dict[str, object] = {"path": "f.txt"}
        if offset is not None:
            params["offset"] = offset
        if limit is not None:
            params["limit"] = limit
        try:
            r = await run(make("read", d), **params)
        except ToolError as e:
            assert str(e) == expected
            return
    finally:
        linescan.CHUNK_SIZE = old
    assert isinstance(expected, tuple), expected
    want_text, want_details = expected
    assert r.text_content == want_text
    assert (r.details or {}).get("truncation") == want_details
