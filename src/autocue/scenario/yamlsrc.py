"""Scenario YAML: ``autocue.yamlpos`` (the one YAML loader) with a scenario file's size limit,
its problems raised as ``ScenarioError`` at ``file:line:col``."""

from __future__ import annotations

from autocue.scenario.errors import Pos, ScenarioError
from autocue.scenario.limits import MAX_DOCUMENT_BYTES
from autocue.yamlpos import Node, YamlError, plain, type_name
from autocue.yamlpos import parse_documents as _parse_documents


def parse_documents(text: str, file: str) -> list[Node]:
    """Every YAML document of a scenario file; ``ScenarioError`` on a syntax error or a limit (``limits``)."""
    size = len(text) if len(text) > MAX_DOCUMENT_BYTES else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_DOCUMENT_BYTES:
        raise ScenarioError(too_big(size), Pos(file, 1, 1))
    try:
        return _parse_documents(text, file)
    except YamlError as e:
        raise ScenarioError(e.message, e.pos) from None


def too_big(size: int) -> str:
    """The message for a scenario file over ``MAX_DOCUMENT_BYTES``."""
    return (f"the file is {size:,} bytes, over the {MAX_DOCUMENT_BYTES:,}-byte limit of a scenario file: "
            "split it into several files")


__all__ = ["Node", "parse_documents", "plain", "too_big", "type_name"]
