"""``autocue.yamlpos``, the one YAML loader, and the four callers that keep their own error types.

Each caller reports a YAML problem as its own error with ``file:line:col``, and nesting past
``MAX_DEPTH`` is that error too, never a ``RecursionError``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.loop import LoopConfigError, load_config
from autocue.sandbox.smoke import SmokeSpecError, load_smoke_file
from autocue.scenario import ScenarioError, load_scenario_text
from autocue.session.resources import parse_front_matter
from autocue.yamlpos import MAX_DEPTH, Pos, YamlError, parse_document, parse_documents

DEEP = "a: " + "[" * 600 + "]" * 600 + "\n"


def test_values_keys_and_items_have_their_positions() -> None:
    doc = parse_document("top:\n  k: 1\n  list:\n    - x\n    - {y: 2}\n", "f.yml")
    assert doc is not None and doc.positions is not None
    top = doc.v["top"]
    assert doc.positions.key_pos(top, "list") == Pos("f.yml", 3, 3)
    assert doc.positions.value_pos(top["list"], 1) == Pos("f.yml", 5, 7)
    assert doc.key("top").key("k").pos == Pos("f.yml", 2, 6)
    assert doc.v == {"top": {"k": 1, "list": ["x", {"y": 2}]}}


def test_keys_are_the_text_written_and_documents_are_separate() -> None:
    docs = parse_documents("1: a\n---\nb: 2\n", "f.yml")
    assert [d.v for d in docs] == [{"1": "a"}, {"b": 2}]
    with pytest.raises(YamlError) as ei:
        parse_document("a: 1\n---\nb: 2\n", "f.yml")
    assert str(ei.value).startswith("f.yml:3:1: this file holds more than one YAML document")
    assert parse_document("", "f.yml") is None


@pytest.mark.parametrize(("text", "where", "needle"), [
    ("a: 1\na: 2\n", "f.yml:2:1", "duplicate key 'a'"),
    # an error at the end of the stream is at the end of the last line, not past it
    ("a: [1, 2\n", "f.yml:1:9: invalid YAML", "but got '<stream end>'"),
    ("a: [1, 2", "f.yml:1:9: invalid YAML", "but got '<stream end>'"),
    ('name: t\ntimeline:\n  - llmResponse:\n      - assistant: "unclosed\n', "f.yml:4:29: invalid YAML",
     "found unexpected end of stream"),
    ("a: 1\nb: [x\n\n\n", "f.yml:4:1: invalid YAML", "but got '<stream end>'"),  # the last line is blank
    ("a: !!set {x}\n", "f.yml:1:4", "YAML sets (!!set) are not supported"),
    (DEEP, "f.yml:1:", f"more than {MAX_DEPTH} levels deep"),
])
def test_problems_are_yaml_errors_at_file_line_col(text: str, where: str, needle: str) -> None:
    with pytest.raises(YamlError) as ei:
        parse_documents(text, "f.yml")
    assert str(ei.value).startswith(where) and needle in str(ei.value)


def test_scenario_keeps_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as ei:
        load_scenario_text("name: x\ntimeline: " + "[" * 600 + "]" * 600 + "\n", "s.yml")
    assert ei.value.pos.line == 2 and f"more than {MAX_DEPTH} levels" in ei.value.message


def test_loop_config_errors_name_file_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "autocue.loop.yml"
    p.write_text("event_loop:\n  max_iterations: many\n")
    with pytest.raises(LoopConfigError) as ei:
        load_config(p)
    assert str(ei.value).startswith(f"{p}:2:3: 'max_iterations' must be an integer")
    p.write_text(DEEP)
    with pytest.raises(LoopConfigError) as ei:
        load_config(p)
    assert str(ei.value).startswith(f"{p}:1:") and f"more than {MAX_DEPTH} levels deep" in str(ei.value)


def test_front_matter_errors_name_the_line_in_the_file() -> None:
    with pytest.raises(ValueError, match=r"^SKILL.md:3:1: invalid YAML front matter: .*duplicate key 'name'"):
        parse_front_matter("---\nname: a\nname: b\n---\nbody\n", "SKILL.md")
    with pytest.raises(ValueError, match=rf"^SKILL.md:2:.*more than {MAX_DEPTH} levels deep"):
        parse_front_matter("---\n" + DEEP + "---\nbody\n", "SKILL.md")


def test_smoke_spec_errors_keep_smoke_spec_error(tmp_path: Path) -> None:
    p = tmp_path / "smoke.yml"
    p.write_text("mock_tools: {}\nscript: [\n")
    with pytest.raises(SmokeSpecError, match=rf"^{p}:2:10: invalid YAML"):
        load_smoke_file(p)
    p.write_text(DEEP)
    with pytest.raises(SmokeSpecError, match=f"more than {MAX_DEPTH} levels deep"):
        load_smoke_file(p)
