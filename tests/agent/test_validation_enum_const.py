"""``enum`` and ``const`` compare as JSON Schema does: booleans are not numbers, 1 equals 1.0."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autocue.agent.validation import compile_validator, json_equal


@pytest.mark.parametrize(
    ("schema", "value", "ok"),
    [
        ({"enum": [0, 1]}, True, False),
        ({"enum": [0, 1]}, False, False),
        ({"enum": [0, 1]}, 1, True),
        ({"enum": [0, 1]}, 1.0, True),
        ({"enum": [True]}, 1, False),
        ({"enum": [True, False]}, False, True),
        ({"const": 1}, True, False),
        ({"const": 0}, False, False),
        ({"const": False}, 0, False),
        ({"const": 1}, 1.0, True),
        ({"const": 2.5}, 2.5, True),
        ({"const": "a"}, "a", True),
        ({"const": None}, None, True),
        ({"const": None}, 0, False),
        ({"const": [1, [2]]}, [1.0, [2]], True),
        ({"const": [1, [2]]}, [True, [2]], False),
        ({"const": [1]}, [1, 1], False),
        ({"enum": [[0, 1]]}, [False, True], False),
        ({"const": {"a": [1]}}, {"a": [1.0]}, True),
        ({"const": {"a": 1}}, {"a": True}, False),
        ({"const": {"a": 1}}, {"a": 1, "b": 2}, False),
        ({"enum": [{"a": {"b": 0}}]}, {"a": {"b": False}}, False),
        ({"enum": [{"a": {"b": 0}}]}, {"a": {"b": 0.0}}, True),
        ({"type": "object", "properties": {"n": {"enum": [0, 1]}}}, {"n": True}, False),
    ],
)
def test_enum_and_const_compare_type_strictly(schema: dict[str, Any], value: Any, ok: bool) -> None:
    errors = compile_validator(schema)(value)
    assert (errors == []) is ok, errors
    # the reference implementation agrees on every case
    assert jsonschema.Draft202012Validator(schema).is_valid(value) is ok


def test_the_error_names_the_allowed_values_and_what_came() -> None:
    assert compile_validator({"type": "object", "properties": {"n": {"enum": [0, 1]}}})({"n": True}) == [
        "n: must be one of [0, 1], got True"
    ]
    assert compile_validator({"const": 1})(True) == ["arguments: must be 1, got True"]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 1.5, -2.0])
    | st.sampled_from(["", "a", "1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@given(json_values, json_values)
def test_json_equal_agrees_with_jsonschema(a: Any, b: Any) -> None:
    expected = jsonschema.Draft202012Validator({"const": a}).is_valid(b)
    assert json_equal(a, b) is expected
    assert (compile_validator({"const": a})(b) == []) is expected
    assert (compile_validator({"enum": [a, "zz"]})(b) == []) is expected
