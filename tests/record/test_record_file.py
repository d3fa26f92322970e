"""The scenario writer: any text or tool arguments a model sends load back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from autocue.scenario import load_scenario_text
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import Recording, RecordingFileError, TimedReply
from autocue.script import ScriptedToolCall

json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=20), inner,
                                                                                      max_size=3), max_leaves=8)


@given(prompt=st.text(min_size=1).filter(str.strip), text=st.text(), thinking=st.text(min_size=1),
       args=st.dictionaries(st.text(max_size=20), json_values, max_size=4))
def test_any_text_and_arguments_load_back_unchanged(prompt: str, text: str, thinking: str,
                                                    args: dict[str, object]) -> None:
    rec = Recording("prop", Redactor(defaults=False))
    rec.request(prompt, prompt)
    msg = AssistantMessage([ThinkingContent(thinking), TextContent(text), ToolCall("id_1", "my_tool", args)])
    rec.reply(TimedReply(msg, [0.0, 0.0126, 0.02], 0.03))
    sc = load_scenario_text(rec.dumps(), "prop.yaml")
    assert sc.initial_prompt == prompt
    step = sc.compile().all_steps()[0]
    assert step.content[:2] == [ThinkingContent(thinking), TextContent(text)]
    call = step.content[2]
    assert isinstance(call, ScriptedToolCall) and (call.name, call.arguments, call.id) == ("my_tool", args, "id_1")
    assert step.chunk_delays_ms == [0, 13, 0]


def test_appending_writes_keep_the_file_equal_to_the_whole_document(tmp_path: Path) -> None:
    rec = Recording("app", Redactor())
    rec.request("go", "go")
    path = tmp_path / "app.yaml"
    for i in range(3):
        rec.reply(TimedReply(AssistantMessage([TextContent(f"reply {i}")]), [0.001], 0.002))
        rec.write(path)
        if i == 1:
            rec.request("go", "next turn")
    assert path.read_text(encoding="utf-8") == rec.dumps()
    script = load_scenario_text(path.read_text(encoding="utf-8"), str(path)).compile()
    assert [t.prompt for t in script.turns] == ["go", "next turn"]


def _planted(tmp_path: Path, kind: str) -> tuple[Recording, Path, Path]:
    """A recording written once, then its name replaced by a link to (or a copy beside) a victim file."""
    rec = Recording("app", Redactor())
    rec.request("go", "go")
    path = tmp_path / "app.yaml"
    rec.reply(TimedReply(AssistantMessage([TextContent("reply 0")]), [0.001], 0.002))
    rec.write(path)
    victim = tmp_path / "victim.txt"
    victim.write_text("not autocue's\n")
    path.rename(tmp_path / "moved-away.yaml")  # kept, so its inode cannot be reused by what is planted
    if kind == "symlink":
        path.symlink_to(victim)
    elif kind == "hardlink":
        path.hardlink_to(victim)
    else:
        path.write_text(rec.dumps())  # another file, same content, not the one written
    rec.reply(TimedReply(AssistantMessage([TextContent("reply 1")]), [0.001], 0.002))
    return rec, path, victim


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "other-file"])
def test_an_append_never_follows_what_was_planted_after_the_first_write(tmp_path: Path, kind: str) -> None:
    """Issue 27 req 12b: the append opened the name with "a" and wrote through a symlink planted there."""
    rec, path, victim = _planted(tmp_path, kind)
    before = path.read_bytes()
    with pytest.raises(RecordingFileError, match=r"app\.yaml: is (now a symbolic link|no longer the file autocue)"):
        rec.write(path)
    assert victim.read_text() == "not autocue's\n"
    assert path.read_bytes() == before
