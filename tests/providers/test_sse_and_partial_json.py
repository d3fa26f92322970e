"""The incremental SSE decoder and the streamed tool-argument parser."""

from __future__ import annotations

import pytest

from autocue.llm.providers.http import parse_retry_after
from autocue.llm.providers.partial_json import parse_json_arguments, parse_partial_json
from autocue.llm.providers.sse import SSEDecoder, SSEEvent

STREAM = (
    ": comment\r\n"
    "event: message_start\r\n"
    'data: {"a": "héllo ✓"}\r\n'
    "\r\n"
    "data: line1\n"
    "data: line2\n"
    "id: 7\n"
    "\n"
    "event: ping\r"
    "data: {}\r"
    "\r"
    "data: [DONE]\n\n"
).encode()
EXPECTED = [
    SSEEvent("message_start", '{"a": "héllo ✓"}'),
    SSEEvent("message", "line1\nline2", "7"),
    SSEEvent("ping", "{}", "7"),
    SSEEvent("message", "[DONE]", "7"),
]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64, len(STREAM)])
def test_sse_any_split(size: int) -> None:
    dec = SSEDecoder()
    got: list[SSEEvent] = []
    for i in range(0, len(STREAM), size):
        got.extend(dec.feed(STREAM[i : i + size]))
    got.extend(dec.flush())
    assert got == EXPECTED


def test_sse_flush_dispatches_unterminated_event() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"event: x\ndata: 1") == []
    assert dec.flush() == [SSEEvent("x", "1")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"path": "a.txt", "n": 3}', {"path": "a.txt", "n": 3}),
        ('{"path": "a.t', {"path": "a.t"}),
        ('{"path": "a", "n": 1', {"path": "a", "n": 1}),
        ('{"path": "a", "n": 1.', {"path": "a"}),
        ('{"path": "a", "fl', {"path": "a"}),
        ('{"path": "a", "flag": tr', {"path": "a"}),
        ('{"path": "a", "flag": true', {"path": "a", "flag": True}),
        ('{"items": [1, 2, {"k": "v', {"items": [1, 2, {"k": "v"}]}),
        ('{"s": "esc \\"q\\" \\', {"s": 'esc "q" '}),
        ('{"s": "\\u00e', {"s": ""}),
        ("", {}),
        ("[1, 2", {}),
        ("not json", {}),
    ],
)
def test_partial_json(text: str, expected: dict[str, object]) -> None:
    assert parse_partial_json(text) == expected


def test_final_arguments_report_problems() -> None:
    assert parse_json_arguments('{"a": 1}') == ({"a": 1}, None)
    args, problem = parse_json_arguments('{"a": 1')
    assert args == {"a": 1} and problem is not None and "not valid JSON" in problem
    args, problem = parse_json_arguments("[1]")
    assert args == {} and problem is not None and "must be a JSON object" in problem


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({}) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an open string keeps what was streamed so far, trailing spaces included
        ('{"command": "ls -la | ', {"command": "ls -la | "}),
        # half a surrogate pair (an emoji cut mid-escape) drops only the unfinished string
        ('{"text": "done", "emoji": "\\ud83d\\ude', {"text": "done", "emoji": ""}),
    ],
)
def test_partial_json_keeps_what_was_streamed(text: str, expected: dict[str, object]) -> None:
    assert parse_partial_json(text) == expected
