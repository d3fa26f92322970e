"""Event-tag parsing, the completion-promise rule and topic globs."""

from __future__ import annotations

from autocue.loop import has_promise, parse_events, topic_matches


def test_parses_topic_target_and_trimmed_payload() -> None:
    out = 'text\n<event topic="build.task" target="builder">\n  do X \n</event>\nmore <event topic="a.b">p</event>'
    p = parse_events(out, source="planner")
    assert [(e.topic, e.target, e.payload, e.source) for e in p.events] == [
        ("build.task", "builder", "do X", "planner"),
        ("a.b", None, "p", "planner"),
    ]
    assert p.dropped == []


def test_malformed_tags_are_reported_not_silently_dropped() -> None:
    p = parse_events('<event target="x">no topic</event> <event topic="t">never closed')
    assert p.events == []
    reasons = [d.reason for d in p.dropped]
    assert any("no topic" in r for r in reasons)
    assert any("closing </event>" in r for r in reasons)


def test_self_closing_and_look_alikes() -> None:
    p = parse_events('<events>x</events> <event topic="done"/>')
    assert [(e.topic, e.payload) for e in p.events] == [("done", "")]


def test_promise_must_be_last_non_empty_line_outside_events() -> None:
    assert has_promise("work\nLOOP_COMPLETE\n\n", "LOOP_COMPLETE")
    assert has_promise("  LOOP_COMPLETE  ", "LOOP_COMPLETE")
    assert not has_promise("prefix LOOP_COMPLETE suffix", "LOOP_COMPLETE")
    assert not has_promise("LOOP_COMPLETE\nthen more work", "LOOP_COMPLETE")
    # inside an event payload it does not count, even on the last line
    assert not has_promise('<event topic="x">LOOP_COMPLETE</event>', "LOOP_COMPLETE")
    assert not has_promise('<event topic="x">\nLOOP_COMPLETE\n</event>\nLOOP_COMPLETE', "LOOP_COMPLETE")
    # event blocks after the promise line are stripped before taking the last line
    assert has_promise('LOOP_COMPLETE\n<event topic="y">z</event>\n', "LOOP_COMPLETE")


def test_topic_globs_match_one_segment() -> None:
    assert topic_matches("*", "anything.at.all")
    assert topic_matches("build.*", "build.done")
    assert not topic_matches("build.*", "build")
    assert not topic_matches("build.*", "build.done.now")
    assert topic_matches("*.done", "review.done")
    assert topic_matches("task.start", "task.start")
    assert not topic_matches("task.start", "task.resume")
