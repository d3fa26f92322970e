"""``enum`` and ``const`` compare as JSON Schema does: booleans are not numbers, 1 equals 1.0."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from autocue.agent.validation import compile_validator


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
