"""Event types built only when read: ``all_events=True`` records them, and asking for them when
they were not built is an error that says so (never a silent empty list)."""

from __future__ import annotations

import pytest

from autocue.testing import HarnessError, call, create_test_session, say, when


def _turn() -> object:
    return when("go", [call("lookup", {"q": "x"}), say("done")])


def test_unread_event_types_are_not_built_and_asking_for_them_says_how() -> None:
    with create_test_session(mock_tools={"lookup": "ok"}) as t:
        t.run_sync(_turn())
        assert [e.type for e in t.events.all if e.type in ("turn_start", "message_update")] == []
        assert len(t.events.of_type("message_end")) >= 2
        with pytest.raises(HarnessError, match=r"'turn_start'.*all_events=True"):
            t.events.of_type("turn_start")


def test_all_events_records_deltas_and_boundaries() -> None:
    with create_test_session(mock_tools={"lookup": "ok"}, all_events=True) as t:
        t.run_sync(_turn())
        assert len(t.events.of_type("turn_start")) == 2
        assert len(t.events.of_type("agent_start")) == 1
        assert t.events.of_type("message_update"), "the scripted reply streams its deltas when they are read"


def test_a_listener_that_reads_turns_makes_them_recorded() -> None:
    seen: list[str] = []
    with create_test_session(mock_tools={"lookup": "ok"}) as t:
        t.session.subscribe(lambda e: seen.append(e.type))
        t.run_sync(_turn())
        assert "turn_start" in seen
        assert len(t.events.of_type("turn_start")) == 2
