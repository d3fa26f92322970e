"""The JSON Schema accepts every good file (fixtures, examples, harbor) and rejects every broken one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML
from scenario_paths import BROKEN, EXAMPLES, GOOD, harbor_files

from autocue.scenario import scenario_json_schema

SCHEMA = scenario_json_schema()
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
GOOD_FILES = sorted(GOOD.glob("*.yaml")) + sorted(EXAMPLES.glob("*.yaml")) + harbor_files()
# syntax.yaml is not YAML at all: the schema never sees it (the loader reports its position).
BROKEN_FILES = sorted(p for p in BROKEN.glob("*.yaml") if p.name != "syntax.yaml")


def documents(path: Path) -> list[Any]:
    return [d for d in YAML(typ="safe", pure=True).load_all(path.read_text()) if d is not None]


def test_schema_is_a_valid_draft7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert SCHEMA["required"] == ["name"]


def test_there_are_harbor_files() -> None:
    assert len(harbor_files()) == 6


@pytest.mark.parametrize("path", GOOD_FILES, ids=lambda p: p.name)
def test_good_files_validate(path: Path) -> None:
    for doc in documents(path):
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(doc)]
        assert errors == []


@pytest.mark.parametrize("path", BROKEN_FILES, ids=lambda p: p.name)
def test_broken_files_are_rejected(path: Path) -> None:
    (doc,) = documents(path)
    assert list(VALIDATOR.iter_errors(doc)) != []


@pytest.mark.parametrize(
    ("event", "ok"),
    [
        ({"think": [[0, "a"]]}, True),
        ({"think": "a"}, False),
        ({"think": [[0, "a"]], "assistant": [[0, "b"]]}, False),
        ({"type": "advanceMs", "ms": 5}, True),
        ({"type": "advanceMs", "ms": "5"}, False),
        ({"type": "advanceMs"}, False),
        ({"type": "error", "statusCode": 429, "status": "x"}, True),  # tagged: `status` is not an event there
        ({"runCmd": {"command": "ls"}}, True),
        ({"runCmd": {"cwd": "."}}, False),
        ({"agentToolUse": {"toolName": "runCmd", "args": {"cwd": "."}}}, False),
        ({"agentToolUse": {"toolName": "mcp_tool", "args": {"anything": 1}}}, True),
        ({"userInputs": [{"relativeTime": 0, "input": "hi"}], "target": "tui"}, True),
        ({"somethingNew": {"x": 1}}, True),  # unknown events warn in the loader, the schema lets them pass
        ("complete", True),
        ("advanceMs", False),
        ({"llmResponse": [{"type": "assistant", "text": "hi"}, {"error": {"statusCode": 503}}]}, True),
        ({"llmResponse": [{"assistant": [[0, "x"]], "think": [[0, "y"]]}]}, False),
    ],
)
def test_event_shapes(event: Any, ok: bool) -> None:
    doc = {"name": "t", "timeline": [event]}
    assert VALIDATOR.is_valid(doc) is ok
