"""The viewer reads a session file once: ``SessionManager.open(decoded=True)`` keeps each message
entry's decoded dict, so building the page decodes no line a second time, and the page is the
one the default open gives. Entry times come from ``_Clock``, which must agree with ``iso_to_ms``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autocue.session.entries as entries_module
from autocue.session.file_format import iso_to_ms
from autocue.session.manager import SessionManager
from autocue.view import render_html
from autocue.view.sources import _Clock, session_doc, session_file_doc
from autocue.view.synthetic import write_big_session


def test_building_the_page_decodes_no_line_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_big_session(tmp_path / "s.jsonl", 200)
    calls: list[bytes] = []
    real = entries_module.loads_line

    def counting(raw: bytes) -> Any:
        calls.append(raw)
        return real(raw)

    monkeypatch.setattr(entries_module, "loads_line", counting)
    doc = session_file_doc(path)
    assert doc.summary["entries"] == 200 and len(doc.events) > 200
    assert calls == []  # before: every message entry's line was decoded again by to_json()


def test_the_decoded_open_gives_the_same_entries_and_page(tmp_path: Path) -> None:
    path = write_big_session(tmp_path / "s.jsonl", 120)
    typed, decoded = SessionManager.open(path), SessionManager.open(path, decoded=True)
    assert [e.to_json() for e in decoded.get_entries()] == [e.to_json() for e in typed.get_entries()]
    assert [e.message for e in decoded.get_entries()] == [e.message for e in typed.get_entries()]  # typed lazily
    assert render_html(session_doc(decoded, "s", str(path))) == render_html(session_doc(typed, "s", str(path)))


@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1)))
def test_the_clock_agrees_with_iso_to_ms(when: datetime) -> None:
    clock = _Clock()
    text = when.replace(tzinfo=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert clock.ms(text) == iso_to_ms(text)
    assert clock.ms(text) == iso_to_ms(text)  # second look-up: the cached second


@pytest.mark.parametrize("text", ["", "garbage", "2026-11-22T00:00:00Z", "2026-11-22T00:00:00.5Z",
                                  "2026-11-22T00:00:00.123+01:00", "2026-13-22T00:00:00.123Z",
                                  "2026-11-22T00:00:00.１２３Z", "1970-01-01T00:00:00.007Z", 17])
def test_the_clock_falls_back_to_iso_to_ms(text: Any) -> None:
    assert _Clock().ms(text) == iso_to_ms(text)
