"""``autocue.globs``: one glob dialect for the tools' find/grep globs and the test tools' include/exclude globs."""

from __future__ import annotations

import pytest

from autocue.checks import TestTools
from autocue.globs import GlobError, PathGlob, glob_regex, path_matches

# (glob, path, matches): the rules of docs/tools.md, the same for both users
RULES = [
    ("*.py", "a.py", True),
    ("*.py", ".hidden.py", True),  # * matches a leading dot
    ("src/*.py", "src/a/b.py", False),  # * never crosses /
    ("src/?.py", "src/a.py", True),
    ("**/*.py", "a.py", True),  # ** spans zero directories too
    ("**/*.py", "x/y/a.py", True),
    ("src/**", "src/a/b.txt", True),
    ("src/**", "src", False),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("src/a**.py", "src/a/b.py", False),  # ** inside a segment is *
    ("src/a**.py", "src/abc.py", True),
    ("*.{ts,tsx}", "v.tsx", True),
    ("{src,test}/**/*.py", "test/t.py", True),
    ("{a,{b,c}}.md", "c.md", True),
    ("[!a]b", "ab", False),
    ("[a-c]b", "cb", True),
    ("\\*.txt", "*.txt", True),
    ("\\*.txt", "a.txt", False),
]


@pytest.mark.parametrize(("glob", "path", "expected"), RULES)
def test_the_one_rule_set(glob: str, path: str, expected: bool) -> None:
    assert (glob_regex(glob).match(path) is not None) is expected
    assert path_matches(path, [glob]) is expected


def test_tool_globs_without_a_slash_match_base_names_and_bang_negates() -> None:
    assert PathGlob("*.py").matches("deep/down/m.py")
    neg = PathGlob("!*.min.js")
    assert neg.negated and neg.override("a/x.min.js", is_dir=False) is False


def test_test_tool_globs_cover_what_is_under_a_directory() -> None:
    assert path_matches("docs/a/b.md", ["docs"]) and path_matches("docs/a/b.md", ["./docs/"])
    assert path_matches("src/gen/x.rs", ["src/gen"]) and not path_matches("src/general.rs", ["src/gen"])
    assert path_matches("sub/x.rs", ["*.rs"])  # base name anywhere


def test_test_tools_take_braces_and_the_segment_rule_for_double_star() -> None:
    # before: the test tools' own globs had no {a,b}, and `src/**.rs` crossed directories
    tools = TestTools()
    try:
        tools.test_setup("g", fixtures={"a.rs": "a", "b.toml": "b", "c.md": "c", "src/x.rs": "x", "src/d/y.rs": "y"})
        braces = tools.test_snapshot("g", include_patterns=["*.{rs,toml}"])
        assert sorted(braces["files"]) == ["a.rs", "b.toml", "src/d/y.rs", "src/x.rs"]
        star = tools.test_snapshot("g", include_patterns=["src/**.rs"])
        assert sorted(star["files"]) == ["src/x.rs"]
    finally:
        tools.test_cleanup("g")


def test_a_brace_bomb_is_a_glob_error() -> None:
    with pytest.raises(GlobError, match=r"expand to more than 1000 patterns"):
        glob_regex("{a,b}" * 12)
