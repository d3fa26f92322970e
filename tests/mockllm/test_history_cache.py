"""HistoryCache: the same value and errors as orjson.loads, whatever the next body is."""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autocue.mockllm.history import HistoryCache

TEXT = st.text(alphabet=st.sampled_from([*'ab ]["}{\\,:\n\tü€😀\u2028', "\x00", "\x1f"]), max_size=12)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), TEXT)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(TEXT, inner, max_size=3)), max_leaves=8)
ITEM = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool"]), "content": VALUE})
STYLES = st.sampled_from(["orjson", "compact", "spaced", "indent", "ascii"])


def dump(body: dict[str, Any], style: str) -> bytes:
    if style == "orjson":
        return orjson.dumps(body)
    if style == "compact":
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    if style == "spaced":
        return json.dumps(body, ensure_ascii=False).encode()
    if style == "indent":
        return json.dumps(body, indent=2, ensure_ascii=False).encode() + b"\n"
    return json.dumps(body).encode()  # \u escapes


def build(before: dict[str, Any], key: str, items: list[Any], after: dict[str, Any]) -> dict[str, Any]:
    return {**before, key: items, **after}


def check(cache: HistoryCache, raw: bytes, key: str = "messages", sid: str = "s") -> int:
    """Parse through the cache, compare with orjson.loads, remember; the seen count."""
    try:
        want = orjson.loads(raw)
    except orjson.JSONDecodeError:
        with pytest.raises(orjson.JSONDecodeError):
            cache.parse(sid, raw, key)
        return -1
    got, seen = cache.parse(sid, raw, key)
    assert got == want
    assert list(got) == list(want)
    if isinstance(got, dict):
        cache.remember(sid, raw, got, key)
    return seen


OTHERS = st.dictionaries(st.sampled_from(["model", "tools", "stream", "system", "x"]), VALUE, max_size=3)


@given(items=st.lists(ITEM, min_size=1, max_size=8), before=OTHERS, after=OTHERS, style=STYLES,
       key=st.sampled_from(["messages", "input", "contents"]))
def test_append_only_conversation_is_reused(items: list[Any], before: dict[str, Any], after: dict[str, Any],
                                            style: str, key: str) -> None:
    after = {k: v for k, v in after.items() if k not in before}
    cache = HistoryCache(min_bytes=0)
    previous = 0
    for n in range(1, len(items) + 1):
        seen = check(cache, dump(build(before, key, items[:n], after), style), key)
        assert seen == previous  # the first body is parsed whole, every later one reuses the previous
        previous = n


@given(items=st.lists(ITEM, min_size=2, max_size=6), after=OTHERS, style=STYLES, data=st.data())
def test_changed_bodies_fall_back_and_stay_equal(items: list[Any], after: dict[str, Any], style: str,
                                                 data: st.DataObject) -> None:
    cache = HistoryCache(min_bytes=0)
    body = build({"model": "m"}, "messages", items[:-1], after)
    check(cache, dump(body, style))
    kind = data.draw(st.sampled_from(["item", "suffix", "order", "shrink", "style", "same"]))
    if kind == "item":  # an edited message (a moved cache_control is one)
        k = data.draw(st.integers(0, len(items) - 2))
        changed = [*items]
        changed[k] = {**changed[k], "cache_control": {"type": "ephemeral"}}
        new = build({"model": "m"}, "messages", changed, after)
    elif kind == "suffix":
        new = build({"model": "m"}, "messages", items, {**after, "stream": data.draw(VALUE)})
    elif kind == "order":
        new = {"messages": items, "model": "m", **after}
    elif kind == "shrink":
        new = build({"model": "m"}, "messages", items[:-2], after)
    elif kind == "style":
        new = body
        style = "indent" if style != "indent" else "compact"
    else:
        new = body
    seen = check(cache, dump(new, style))
    if kind in ("item", "order", "shrink") and new["messages"][: len(items) - 1] != items[:-1]:
        assert seen == 0
    for more in range(2):  # and the session goes on correctly afterwards
        new = {**new, "messages": [*new["messages"], {"role": "user", "content": f"more {more}"}]}
        check(cache, dump(new, style))


def test_tail_edge_cases_match_orjson() -> None:
    cache = HistoryCache(min_bytes=0)
    first = b'{"model":"m","messages":[{"a":1}],"stream":true}'
    cases = [
        b'{"model":"m","messages":[{"a":1},]}',  # suffix changed (and invalid)
        b'{"model":"m","messages":[{"a":1},],"stream":true}',  # a trailing comma
        b'{"model":"m","messages":[{"a":1}, {"b":2} ,\n{"c":"]"}\t],"stream":true}',
        b'{"model":"m","messages":[{"a":1}\x0c],"stream":true}',  # \f is not JSON whitespace
        b'{"model":"m","messages":[{"a":1}, {"b":2}], "x": 1],"stream":true}',
        b'{"model":"m","messages":[{"a":1}, "\xff"],"stream":true}',  # invalid UTF-8 in the tail
        b'{"model":"m","messages":[{"a":1} {"b":2}],"stream":true}',
        b'{"model":"m","messages":[{"a":1}   ],"stream":true}',  # whitespace only: the same history
        b'{"model":"m","messages":[{"a":1}, ' + b"[" * 1023 + b"]" * 1023 + b'],"stream":true}',  # too deep
        b'{"model":"m","messages":[{"a":1}, ' + b"[" * 1022 + b"]" * 1022 + b'],"stream":true}',  # just deep enough
        b'[1, 2]',
        b'',
    ]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # to compare the deepest value
    try:
        for raw in cases:
            cache.forget("s")
            check(cache, first)
            check(cache, raw)
    finally:
        sys.setrecursionlimit(limit)


def test_seen_counts_and_whitespace_only_change() -> None:
    cache = HistoryCache(min_bytes=0)
    assert check(cache, b'{"messages":[{"a":1}]}') == 0
    assert check(cache, b'{"messages":[{"a":1},{"b":2}]}') == 1
    assert check(cache, b'{"messages":[{"a":1},{"b":2} ]}') == 2
    assert check(cache, b'{"messages":[{"a":1},{"b":2} , {"c":3}]}') == 2
    assert check(cache, b'{"messages":[{"a":1},{"b":2} , {"c":3}]}', key="input") == 0  # another key: whole


def test_the_previous_body_is_never_changed() -> None:
    cache = HistoryCache(min_bytes=0)
    raw1 = b'{"messages":[{"a":1}],"tools":[1]}'
    body1, _ = cache.parse("s", raw1, "messages")
    cache.remember("s", raw1, body1, "messages")
    body2, seen = cache.parse("s", b'{"messages":[{"a":1},{"b":2}],"tools":[1]}', "messages")
    assert seen == 1
    assert body1 == {"messages": [{"a": 1}], "tools": [1]}
    assert body2["messages"] is not body1["messages"]


def test_duplicate_and_escaped_keys() -> None:
    cache = HistoryCache(min_bytes=0)
    for first, second in [
        (b'{"x":[{"a":1}],"messages":[{"a":1}],"x":[{"a":1}]}',
         b'{"x":[{"a":1}],"messages":[{"a":1}],"x":[{"a":1},{"b":2}]}'),
        (b'{"messages":[{"a":1}],"messages":[{"a":2}]}', b'{"messages":[{"a":1}],"messages":[{"a":2},{"b":3}]}'),
        (b'{"messages":[{"a":1}],"messages":[{"a":2}]}', b'{"messages":[{"a":1},{"b":3}],"messages":[{"a":2}]}'),
        (b'{"say \\"messages":[{"a":1}],"messages":[{"a":2}],"k":"\\"messages\\":["}',
         b'{"say \\"messages":[{"a":1}],"messages":[{"a":2},{"c":3}],"k":"\\"messages\\":["}'),
        (b'{"say \\"messages":[1],"messages":[{"a":1}],"say \\"messages":[{"a":1}]}',
         b'{"say \\"messages":[1],"messages":[{"a":1}],"say \\"messages":[{"a":1},{"b":2}]}'),
        (b'{"\\u006dessages":[{"a":1}],"z":[1]}', b'{"\\u006dessages":[{"a":1},{"b":1}],"z":[1]}'),
        (b'{"messages":[{"messages":[{"a":1}]}],"z":"\\\\"}',
         b'{"messages":[{"messages":[{"a":1}]},{"b":1}],"z":"\\\\"}'),
    ]:
        cache.forget("s")
        check(cache, first)
        check(cache, second)
        check(cache, second[:-1] + b' }')


def test_an_empty_or_missing_history_is_not_kept() -> None:
    cache = HistoryCache(min_bytes=0)
    check(cache, b'{"messages":[]}')
    check(cache, b'{"model":"m"}')
    assert len(cache) == 0
    assert check(cache, b'{"messages":[{"a":1}]}') == 0


def test_bounded_by_sessions_and_bytes() -> None:
    cache = HistoryCache(min_bytes=0, max_sessions=2, max_bytes=100)
    for sid in ("a", "b", "c"):
        check(cache, b'{"messages":[{"a":1}]}', sid=sid)
    assert len(cache) == 2
    assert check(cache, b'{"messages":[{"a":1},{"b":2}]}', sid="a") == 0  # "a" went first
    assert check(cache, b'{"messages":[{"a":1},{"b":2}]}', sid="c") == 1
    big = b'{"messages":[{"a":"' + b"x" * 60 + b'"}]}'
    check(cache, big, sid="d")
    assert cache.held_bytes <= 100
    assert len(cache) == 1
    check(cache, b'{"messages":[{"a":"' + b"x" * 200 + b'"}]}', sid="e")  # larger than the bound: not kept
    assert cache.held_bytes <= 100
    assert "e" not in cache._entries
    cache.forget("d")
    assert len(cache) == 0 and cache.held_bytes == 0


def test_a_session_whose_bodies_keep_changing_backs_off() -> None:
    cache = HistoryCache(min_bytes=0)
    walks = 0
    import autocue.mockllm.history as history

    real = history._locate

    def counting(entry: Any) -> bool:
        nonlocal walks
        walks += 1
        return real(entry)

    history._locate = counting  # type: ignore[assignment]
    try:
        for n in range(1, 40):  # the first message changes every time: never reusable
            raw = orjson.dumps({"messages": [{"n": n}] + [{"k": k} for k in range(n)]})
            assert check(cache, raw) == 0
    finally:
        history._locate = real
    assert walks <= 8


def test_a_short_body_is_parsed_whole_and_not_kept() -> None:
    cache = HistoryCache(min_bytes=1000)
    short = orjson.dumps({"messages": [{"role": "user", "content": "hi"}]})
    body, seen = cache.parse("k", short, "messages")
    cache.remember("k", short, body, "messages")
    assert (seen, len(cache)) == (0, 0)
    long = orjson.dumps({"messages": [{"role": "user", "content": "x" * 1000}]})
    body, _ = cache.parse("k", long, "messages")
    cache.remember("k", long, body, "messages")
    longer = orjson.dumps({"messages": [{"role": "user", "content": "x" * 1000},
                                       {"role": "assistant", "content": "y"}]})
    assert cache.parse("k", longer, "messages") == (orjson.loads(longer), 1)
    assert HistoryCache().min_bytes == 8192
