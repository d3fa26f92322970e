"""Property: any document either loads (and compiles) or raises ScenarioError with a position, quickly.

Two sources of documents: a grammar of scenario-like YAML (known and unknown keys, typed and
tagged scalars, anchors, aliases and merge keys, block and flow style), and mutations of the
real files (harbor conformance files, tests/scenario/fixtures, the shipped examples). The
number of examples comes from the suite's hypothesis profile (``--fuzz-long`` for a long run).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scenario_paths import BROKEN, EXAMPLES, GOOD, harbor_files

from autocue.scenario import ScenarioError, load_scenario_texts
from autocue.scenario.events import TIMELINE_EVENTS
from autocue.scenario.vocab import RESPONSE_PART_KINDS, TOP_LEVEL_KEYS

FILE = "fuzz.yaml"
SECONDS = 5.0
"""Bound on one load + compile; documents here are at most a few KB (a real file loads in ~10 ms)."""

SCALARS = [
    "x", "hi there", "''", '"q\\"uote"', "0", "-3", "1.5", "0x1F", "0o17", "0b101", "1_000", "+12", "1e400",
    ".inf", "-.inf", ".nan", "~", "null", "true", "false", "yes", "on", "2024-02-30", "2024-02-28",
    "2001-12-14t21:59:43.10-05:00", "1:20", "!!binary aGVsbG8=", "!!binary '***'", "!!int abc", "!!float 1",
    "!!bool maybe", "!!str 12", "!!timestamp nope", "!!null x", "!foo bar", "!!python/object:os.system ls",
    "'9999999999999999999999'", "9" * 40, "|\n  block\n", "@reserved", "%", "`tick", "- x", "? k", "&", "*",
]
SCALAR_KEYS = ["1", "true", "null", "~", "2024-01-01", "0x1F", "<<", "!foo k", "'quoted'", "zzz", "type", "_meta"]
WORDS = sorted({*TOP_LEVEL_KEYS, *TIMELINE_EVENTS, *RESPONSE_PART_KINDS, "cmd", "path", "content", "toolName",
                "args", "ms", "text", "relativeTime", "statusCode", "exists", "fs", "llmRespons", "timline"})


class Doc:
    """Emits YAML text with anchors: ``anchor()`` names a new anchor, ``alias()`` reuses one."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.anchors: list[str] = []

    def anchor(self) -> str:
        if self.draw(st.integers(0, 4)) == 0:
            name = f"a{len(self.anchors)}"
            self.anchors.append(name)
            return f"&{name} "
        return ""

    def alias(self) -> str | None:
        if self.anchors and self.draw(st.integers(0, 3)) == 0:
            return "*" + self.draw(st.sampled_from(self.anchors))
        return None

    def key(self) -> str:
        return self.draw(st.sampled_from(WORDS) | st.sampled_from(SCALAR_KEYS))

    def value(self, depth: int) -> str:
        alias = self.alias()
        if alias is not None:
            return alias
        kind = self.draw(st.integers(0, 4 if depth > 0 else 1))
        if kind <= 1:
            s = self.draw(st.sampled_from(SCALARS) | st.text(max_size=8).map(lambda t: repr(t)[1:-1]))
            return s if s.startswith(("|", "-", "?")) else self.anchor() + s
        if kind == 2:  # [ms, text] pair
            return f"[{self.draw(st.integers(-5, 500))}, {self.value(0)}]"
        tag = self.draw(st.sampled_from(["", "", "", "!!set ", "!!omap ", "!foo "]))
        n = self.draw(st.integers(0, 3))
        if kind == 3:
            return self.anchor() + tag + "[" + ", ".join(self.value(depth - 1) for _ in range(n)) + "]"
        items = []
        for _ in range(n):
            k = self.key()
            if k == "<<":
                items.append("<<: " + (self.alias() or "{" + f"{self.key()}: {self.value(0)}" + "}"))
            else:
                items.append(f"{k}: {self.value(depth - 1)}")
        return self.anchor() + tag + "{" + ", ".join(items) + "}"


@st.composite
def scenario_documents(draw: st.DrawFn) -> str:
    d = Doc(draw)
    lines = [f"name: {d.value(0)}" if draw(st.booleans()) else "name: fuzz"]
    for _ in range(draw(st.integers(0, 3))):
        lines.append(f"{d.key()}: {d.value(2)}")
    lines.append("timeline:")
    for _ in range(draw(st.integers(0, 5))):
        event = draw(st.sampled_from(TIMELINE_EVENTS) | st.sampled_from(WORDS))
        if draw(st.booleans()):
            count = draw(st.integers(0, 2))
            parts = [f"{draw(st.sampled_from(RESPONSE_PART_KINDS))}: {d.value(3)}" for _ in range(count)]
            lines.append(f"  - {d.anchor()}llmResponse:")
            lines.extend([f"      - {p}" for p in parts] or ["      []"])
        else:
            lines.append(f"  - {event}: {d.value(3)}")
    return "\n".join(lines) + "\n"


def real_texts() -> list[str]:
    files = [*harbor_files(), *sorted(GOOD.glob("*.yaml")), *sorted(BROKEN.glob("*.yaml")),
             *sorted(EXAMPLES.glob("*.yaml"))]
    return [f.read_text(encoding="utf-8") for f in files]


REAL = real_texts()
INSERTS = [*SCALARS, "&a ", "*a", "<<: *a\n", "\n", "  ", "- ", ": ", "{", "}", "[", "]", ",", "#", "\t", "---\n",
           "llmRespons", "!!set ", "!foo ", "&b [*a, *a, *a]", "'", '"']


@st.composite
def mutated_real_files(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(REAL))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.integers(0, 3))
        if op == 0:
            text = text[:at] + draw(st.sampled_from(INSERTS)) + text[at:]
        elif op == 1:
            text = text[:at] + text[at + draw(st.integers(1, 40)):]
        elif op == 2:  # duplicate a line
            lines = text.splitlines(keepends=True)
            i = draw(st.integers(0, max(len(lines) - 1, 0)))
            text = "".join(lines[: i + 1] + lines[i:])
        else:  # replace a word with a typed scalar
            end = text.find("\n", at)
            cut = text.rfind(": ", 0, end if end >= 0 else len(text))
            if cut >= 0:
                text = text[: cut + 2] + draw(st.sampled_from(SCALARS)) + (text[end:] if end >= 0 else "")
    return text


def check(text: str) -> None:
    started = time.monotonic()
    try:
        for sc in load_scenario_texts(text, FILE):
            sc.compile()
    except ScenarioError as e:
        assert e.file == FILE and e.line >= 1 and e.col >= 1, str(e)
        assert str(e).startswith(f"{FILE}:{e.line}:{e.col}: ")
        assert "\n" not in e.message, e.message
    assert time.monotonic() - started < SECONDS


@pytest.mark.slow
@given(scenario_documents())
def test_generated_documents_load_or_fail_with_a_position(text: str) -> None:
    check(text)


@pytest.mark.slow
@given(mutated_real_files())
def test_mutated_real_files_load_or_fail_with_a_position(text: str) -> None:
    check(text)


def test_the_real_files_are_there() -> None:
    assert len(REAL) >= 20 and all(Path(f).suffix == ".yaml" for f in harbor_files())
