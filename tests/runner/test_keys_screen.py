"""Key names and the screen emulator (pure units; the pty tests are in test_timeline.py)."""

from __future__ import annotations

from autocue.runner.keys import Chunk, key_bytes, parse_input
from autocue.runner.screen import Screen, normalise


def test_a_plain_text_is_a_line_and_keys_are_their_own_writes() -> None:
    assert parse_input("hello") == [Chunk("hello"), Chunk("\r", "enter")]
    assert parse_input("ab<tab>c<enter>") == [Chunk("ab"), Chunk("\t", "tab"), Chunk("c"), Chunk("\r", "enter")]
    assert parse_input("<esc>") == [Chunk("\x1b", "esc")]
    assert parse_input("<Ctrl-C>") == [Chunk("\x03", "ctrl-c")]


def test_unknown_tokens_and_lt_stay_text() -> None:
    assert parse_input("<div>x</div>") == [Chunk("<div>x</div>"), Chunk("\r", "enter")]
    assert parse_input("a <lt>b> c") == [Chunk("a <b> c"), Chunk("\r", "enter")]


def test_arrows_follow_the_application_cursor_mode() -> None:
    assert key_bytes("up") == "\x1b[A"
    assert key_bytes("up", app_cursor=True) == "\x1bOA"
    assert key_bytes("f5") == "\x1b[15~"


def test_cursor_position_and_device_queries_are_answered() -> None:
    s = Screen(20, 4)
    assert s.feed(b"ab\x1b[6ncd") == b"\x1b[1;3R"
    assert s.feed(b"\x1b[c\x1b[5n") == b"\x1b[?6c\x1b[0n"
    assert s.text() == "abcd"


def test_a_query_split_across_reads_is_answered_once() -> None:
    s = Screen(20, 4)
    assert s.feed(b"xy\x1b[") == b""
    assert s.feed(b"6nz") == b"\x1b[1;3R"
    assert s.text() == "xyz"


def test_alternate_screen_restores_the_main_screen() -> None:
    s = Screen(20, 4)
    s.feed(b"main\r\n\x1b[?1049h\x1b[Halt screen")
    assert s.text() == "alt screen"
    s.feed(b"\x1b[?1049l")
    assert s.text() == "main"


def test_synchronized_output_is_tracked() -> None:
    s = Screen(20, 4)
    s.feed(b"\x1b[?2026ha")
    assert s.in_sync_update
    s.feed(b"b\x1b[?2026l")
    assert not s.in_sync_update and s.text() == "ab"


def test_normalise_trims_trailing_spaces_and_blank_rows() -> None:
    assert normalise(["a  ", " b ", "   ", ""]) == "a\n b"


def test_the_runner_keys_are_known_to_the_loader() -> None:
    from autocue.scenario import load_scenario_text

    sc = load_scenario_text("name: x\nagent: mock\nmasks: ['\\\\d+']\ntimeline:\n  - llmResponse:\n"
                            "      - assistant: [[0, hi]]\n", "x.yaml")
    assert sc.warnings == []
