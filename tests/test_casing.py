"""autocue.casing: the one camelCase / snake_case helper, converting only the keys it is told."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from autocue.casing import MISSING, camel_keys, field, snake_keys, to_camel, to_snake


@pytest.mark.parametrize(("snake", "camel"), [
    ("base_url", "baseUrl"), ("api_key_env", "apiKeyEnv"), ("is_error", "isError"),
    ("skip_conversation_restore", "skipConversationRestore"), ("cache_read", "cacheRead"), ("name", "name"),
])
def test_names_convert_both_ways(snake: str, camel: str) -> None:
    assert to_camel(snake) == camel
    assert to_snake(camel) == snake


def test_only_the_listed_keys_change_spelling() -> None:
    d = {"baseUrl": "http://x", "contextWindow": 8, "X-Custom-Header": "1", "someExtensionKey": 2}
    assert snake_keys(d, ["base_url", "context_window"]) == {
        "base_url": "http://x", "context_window": 8, "X-Custom-Header": "1", "someExtensionKey": 2}
    assert camel_keys({"repeat_gap": 3, "my_own": 1}, ["repeatGap"]) == {"repeatGap": 3, "my_own": 1}


def test_field_reads_either_spelling_from_a_dict_and_attributes_from_an_object() -> None:
    @dataclass
    class Result:
        is_error: bool

    assert field({"isError": True}, "is_error") is True
    assert field({"is_error": False, "isError": True}, "is_error") is False  # the snake_case key wins
    assert field(Result(True), "is_error") is True
    assert field({"other": 1}, "is_error") is MISSING
    assert field(Result(True), "details") is MISSING
    assert not MISSING and repr(MISSING) == "MISSING"
