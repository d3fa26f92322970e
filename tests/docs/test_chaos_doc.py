"""docs/chaos.md: its python examples run, its YAML scenario loads without a warning and
plays its fault, and every spec the page shows parses."""

from __future__ import annotations

import re

import httpx2
import pytest
from doc_blocks import ROOT, code_blocks, run_block

from autocue.mockllm import serve
from autocue.mockllm.wire.fuzz import parse_fuzz
from autocue.scenario import compile_scenario, load_scenario_text
from autocue.script.chaos import parse_chaos

PAGE = ROOT / "docs" / "chaos.md"


@pytest.mark.parametrize(("line", "code"), code_blocks(PAGE))
def test_python_example_runs(line: int, code: str) -> None:
    run_block(PAGE, line, code, f"doc_chaos_{line}")


def test_yaml_example_loads_quietly_and_fails_its_first_attempt() -> None:
    [(_, text)] = code_blocks(PAGE, "yaml")
    sc = load_scenario_text(text, "docs/chaos.md")
    assert sc.warnings == []
    with serve(compile_scenario(sc)) as server:
        body = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "summarize the report"}]}
        first = httpx2.post(server.base_url + "/v1/messages", json=body, headers={"x-api-key": "k"})
        second = httpx2.post(server.base_url + "/v1/messages", json=body, headers={"x-api-key": "k"})
    assert first.status_code == 529 and first.json()["error"]["type"] == "overloaded_error"
    assert first.headers["retry-after-ms"] == "10"
    assert second.json()["content"][0]["text"] == "The report says sales rose 4%."


def test_every_spec_on_the_page_parses() -> None:
    text = PAGE.read_text()
    chaos = re.findall(r"--chaos '([^']+)'", text)
    fuzz = re.findall(r"--fuzz '?([0-9][^' )`]*)", text)
    assert chaos and fuzz
    for spec in chaos:
        parse_chaos(spec)
    for spec in fuzz:
        parse_fuzz(spec)
