"""autocue.dicts.deep_merge: mappings merge key by key, anything else replaces, nothing is changed in place."""

from __future__ import annotations

from types import MappingProxyType

from autocue.dicts import deep_merge


def test_mappings_merge_and_other_values_replace() -> None:
    base = {"compaction": {"enabled": True, "reserveTokens": 100}, "tools": ["read"], "name": "a"}
    over = {"compaction": {"reserveTokens": 5}, "tools": ["bash"], "extra": {"x": 1}}
    assert deep_merge(base, over) == {
        "compaction": {"enabled": True, "reserveTokens": 5}, "tools": ["bash"], "name": "a", "extra": {"x": 1}}
    assert base == {"compaction": {"enabled": True, "reserveTokens": 100}, "tools": ["read"], "name": "a"}


def test_a_mapping_replaces_a_scalar_and_read_only_mappings_merge() -> None:
    assert deep_merge({"a": 1}, {"a": {"b": 2}}) == {"a": {"b": 2}}
    assert deep_merge({"a": {"b": 1}}, MappingProxyType({"a": MappingProxyType({"c": 2})})) == {"a": {"b": 1, "c": 2}}
