"""autocue.casing: the one camelCase / snake_case helper, converting only the keys it is told."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from autocue.casing import MISSING, CamelJson, camel_keys, field, snake_keys, to_camel, to_snake


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


def test_camel_json_writes_a_dataclass_under_camel_case_keys() -> None:
    @dataclass
    class Inner(CamelJson):
        HEAD = None
        tool_name: str

    @dataclass
    class AllFields(CamelJson):
        type: ClassVar[str] = "all"
        not_json: ClassVar[frozenset[str]] = frozenset({"secret"})
        content_index: int
        inner: list[Inner]
        missing: str | None = None
        secret: str = "s"

    @dataclass
    class Keyed(CamelJson):
        HEAD = "role"
        KEYS = ("exitCode?", "command", "fullOutputPath")
        role: str
        command: str
        exit_code: int | None = None
        full_output_path: str | None = None

    assert AllFields(2, [Inner("read")]).to_json() == {
        "type": "all", "contentIndex": 2, "inner": [{"toolName": "read"}], "missing": None}
    assert list(Keyed("bash", "ls", 0).to_json()) == ["role", "exitCode", "command", "fullOutputPath"]
    assert Keyed("bash", "ls").to_json() == {"role": "bash", "command": "ls", "fullOutputPath": None}
    assert Keyed.json_attrs() == (("exitCode", "exit_code", True), ("command", "command", False),
                                  ("fullOutputPath", "full_output_path", False))
