"""Recorded usage and stop reason (``_meta`` of each step) are replayed, not estimated."""

from __future__ import annotations

from pathlib import Path

import httpx2

from autocue.mockllm import serve
from autocue.scenario import load_scenario_text

RECORDED = """\
# recorded by autocue record
name: "usage"
initialPrompt: "hi"
timeline:
  - llmResponse:
      - assistant: [[3, "cut sh"]]
    _meta: {"stopReason":"length","usage":{"input":1234,"output":56,"cacheRead":7,"cacheWrite":0},"model":"gpt-5"}
  - llmResponse:
      - assistant: [[3, "again"]]
    _meta: {"stopReason":"error","usage":"bogus"}
"""


def test_replay_uses_the_recorded_usage_and_stop_reason(tmp_path: Path) -> None:
    sc = load_scenario_text(RECORDED, str(tmp_path / "usage.yaml"))
    first, second = sc.compile().turns[0].steps
    assert first.usage is not None and (first.usage.input, first.usage.output, first.usage.cache_read) == (1234, 56, 7)
    assert first.stop_reason == "length"
    assert second.usage is None and second.stop_reason is None  # unusable meta: the defaults
    with serve(sc) as server:
        r = httpx2.post(server.base_url + "/v1/messages", headers={"x-api-key": "k"},
                        json={"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
        body = r.json()
        assert body["usage"]["input_tokens"] == 1234 and body["usage"]["output_tokens"] == 56
        assert body["usage"]["cache_read_input_tokens"] == 7
        assert body["stop_reason"] == "max_tokens"
