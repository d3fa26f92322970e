"""The loader's limits (size, nesting, alias expansion) and typed YAML values: ScenarioError with a position."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

from autocue.cli.scenario import main
from autocue.scenario import ScenarioError, load_scenario, load_scenario_text
from autocue.scenario.limits import MAX_DEPTH, MAX_DOCUMENT_BYTES


def bomb(levels: int, width: int, use: str) -> str:
    """A "billion laughs" document: each anchor lists ``width`` aliases of the previous one."""
    lines = ["name: bomb", "a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join([*lines, use.replace("LAST", f"*a{levels - 1}"), "timeline: []", ""])


def load_error(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text)
    return info.value


def test_a_small_alias_bomb_stops_at_the_alias_that_crosses_the_budget() -> None:
    text = bomb(9, 9, "acp: {k: LAST}")  # 9**9 values once expanded, from about 500 bytes
    assert len(text.encode()) < 520
    started = time.monotonic()
    e = load_error(text)
    assert time.monotonic() - started < 2
    assert e.message.startswith("aliases expand to too much: up to this alias they stand for ")
    assert "over this document's budget of 10," in e.message and "write the repeated parts out" in e.message
    lines = text.splitlines()
    assert lines[e.line - 1][e.col - 1:].startswith("*a")  # the position is an alias, not its anchor


def test_an_alias_bomb_under_an_ignored_key_is_refused_too() -> None:
    e = load_error(bomb(12, 10, "other: LAST"))
    assert e.message.startswith("aliases expand to too much")


def test_aliases_within_the_budget_load() -> None:
    block = "{cmd: " + "y" * 50 + ", cwd: .}"
    text = "name: t\ndefs: &run " + block + "\ntimeline:\n" + "  - runCmd: *run\n" * 500
    sc = load_scenario_text(text)
    assert sc.compile().step_count == 500


def test_long_text_repeated_through_aliases_counts_its_characters() -> None:
    text = "name: t\nbig: &big " + "z" * 100_000 + "\nacp: [" + ", ".join(["*big"] * 30) + "]\ntimeline: []\n"
    e = load_error(text)
    assert "characters" in e.message and e.message.startswith("aliases expand to too much")
    assert (e.line, e.col) == (3, 7 + 6 * 11)  # the 12th alias crosses 1,000,000 + the document's ~100,000 characters


def test_nesting_deeper_than_the_limit_names_where() -> None:
    ok = "name: t\nacp: {k: " + "[" * (MAX_DEPTH - 2) + "x" + "]" * (MAX_DEPTH - 2) + "}\n"
    load_scenario_text(ok)  # 100 levels of mappings and lists, with a value inside
    e = load_error("name: t\nacp: {k: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}\n")
    assert (e.line, e.col) == (2, 10 + MAX_DEPTH - 2)
    assert e.message == (f"the document nests mappings and lists more than {MAX_DEPTH} levels deep: "
                         "flatten it (deeper nesting is not supported)")


def test_nesting_built_through_aliases_is_bounded_at_the_alias() -> None:
    # a{i} is i + 1 lists deep (its own, then i through aliases), inside the top-level mapping
    lines = ["name: t", "a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 300)]
    load_scenario_text("\n".join(lines[:MAX_DEPTH]) + "\n")  # up to a98: 100 levels
    e = load_error("\n".join(lines) + "\n")
    assert e.message.startswith(f"the document nests mappings and lists more than {MAX_DEPTH} levels deep "
                                "through this alias")
    assert (e.line, e.col) == (MAX_DEPTH + 1, len(f"a{MAX_DEPTH - 1}: &a{MAX_DEPTH - 1} [") + 1)


def test_a_document_over_the_size_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "name: t\ntimeline: []\n#" + "x" * MAX_DOCUMENT_BYTES + "\n"
    e = load_error(text)
    assert (e.line, e.col) == (1, 1)
    assert e.message == (f"the file is {len(text):,} bytes, over the {MAX_DOCUMENT_BYTES:,}-byte limit of a "
                         "scenario file: split it into several files")
    f = tmp_path / "big.yaml"
    f.write_text(text)
    with pytest.raises(ScenarioError, match="-byte limit of a scenario file"):
        load_scenario(f)
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().err.startswith(f"error: {f}:1:1: the file is ")


def test_multibyte_text_counts_in_bytes() -> None:
    text = "name: t\n# " + "é" * (MAX_DOCUMENT_BYTES // 2) + "\n"
    assert len(text) < MAX_DOCUMENT_BYTES < len(text.encode())
    assert "-byte limit" in load_error(text).message


# value, message (start), column of the problem inside the value
BAD_VALUES = [
    ("2024-02-30", "cannot read '2024-02-30' as a date (day is out of range for month): write a valid value, "
                   "or quote it to make it a string", 0),
    ("2001-13-01", "cannot read '2001-13-01' as a date (month must be in 1..12)", 0),
    ("!!timestamp nope", "cannot read 'nope' as a date", 0),
    ("!!int abc", "cannot read 'abc' as an integer", 0),
    ("!!float xyz", "cannot read 'xyz' as a number", 0),
    ("!!bool maybe", "cannot read 'maybe' as true or false: write a valid value", 0),
    ("9" * 5000, "cannot read '9999999999999999999999999999999999999...' as an integer (Exceeds the limit", 0),
    (".inf", "'.inf' is not a finite number: write a number, or quote it to make it a string", 0),
    ("-.inf", "'-.inf' is not a finite number", 0),
    (".nan", "'.nan' is not a finite number", 0),
    ("1e400", "'1e400' is not a finite number", 0),
    ("!!binary aGVsbG8=", "binary data (!!binary) is not supported", 0),
    ("!!set {a, b}", "YAML sets (!!set) are not supported: write a list", 0),
    ("!!omap [a: 1]", "ordered mappings (!!omap) are not supported", 0),
    ("!!pairs [a: 1]", "YAML pairs (!!pairs) are not supported", 0),
    ("!foo bar", "unsupported YAML tag !foo: remove it", 0),
    ("!foo {a: 1}", "unsupported YAML tag !foo: remove it", 0),
    ("!!python/tuple [1]", "unsupported YAML tag !!python/tuple: remove it", 0),
    ("{<<: 5}", "`<<` merges a mapping or a list of mappings", 5),
    ("{[a]: b}", "a mapping key must be a plain value, not a mapping or list", 1),
]


@pytest.mark.parametrize(("value", "message", "offset"), BAD_VALUES, ids=[v[:20] for v, _, _ in BAD_VALUES])
@pytest.mark.parametrize(("slot", "col"), [("initialPrompt: {v}\ntimeline: []\n", 16), ("acp: {{x: {v}}}\n", 10)],
                         ids=["prompt", "acp"])
def test_bad_typed_values_are_errors_at_their_position(value: str, message: str, offset: int, slot: str,
                                                       col: int) -> None:
    e = load_error("name: t\n" + slot.format(v=value))
    assert (e.line, e.col) == (2, col + offset)
    assert e.message.startswith(message)


@pytest.mark.parametrize("value", ["2024-02-30", "!!bool maybe", ".inf", "!foo bar", "!!binary aGVsbG8="])
def test_bad_typed_keys_are_errors_at_their_position(value: str) -> None:
    e = load_error(f"name: t\ntimeline:\n  - {value}: 1\n")
    assert (e.line, e.col) == (3, 5)
    assert e.message == load_error(f"name: t\nacp: {value}\n").message


def test_valid_typed_values_and_non_string_keys_load() -> None:
    sc = load_scenario_text(
        "name: t\n"
        "acp: {hex: 0x1F, oct: 0o17, under: 1_000, date: 2024-02-28, stamp: 2001-12-14 21:59:43.10,\n"
        "      1: one, true: yes, null: nothing, 2.5: two, ~: tilde}\n"
        "timeline:\n  - advanceMs: 0x10\n"
    )
    assert sc.acp == {"hex": 31, "oct": 15, "under": 1000, "date": "2024-02-28", "stamp": "2001-12-14T21:59:43.100000",
                      "1": "one", "true": "yes", "null": "nothing", "2.5": "two", "~": "tilde"}
    assert sc.compile().step_count == 0


def test_keys_read_as_written_collide_as_duplicates() -> None:
    e = load_error("name: t\nacp: {1: a, '1': b}\n")
    assert (e.line, e.col) == (2, 13) and e.message.startswith("invalid YAML: duplicate key '1' (first at line 2)")


def test_a_redefined_anchor_is_allowed_without_a_python_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sc = load_scenario_text("name: t\na: &x {cmd: one}\nb: &x {cmd: two}\ntimeline:\n  - runCmd: *x\n")
    assert sc.compile().step_count == 1
    assert sc.compile().all_steps()[0].tool_calls[0].resolve()["cmd"] == "two"
