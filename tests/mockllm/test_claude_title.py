"""Claude Code's TUI asks for a session title before its first turn (measured with 2.1.197): a tool-less
Messages request whose system prompt asks for a "sentence-case title" as JSON (``output_config.format``
with a ``title`` schema) and whose user message ends "Write the title in the language the user wrote
in...". It is a side call: answered with a JSON title, without taking the scenario's first step."""

from __future__ import annotations

import json

import anthropic

from autocue.mockllm import serve
from autocue.scenario import load_scenario_text

TITLE_SYSTEM = ("Generate a concise, sentence-case title (3-7 words) that captures the main topic or goal of this "
                "coding session. ... Return JSON with a single \"title\" field.")
SCENARIO = """
name: write_hello
timeline:
  - llmResponse:
      - writeFile: {path: hello.txt, content: "hi\\n"}
"""


def test_claude_codes_title_request_is_a_side_call_answered_with_json() -> None:
    sc = load_scenario_text(SCENARIO, "t.yaml")
    with serve(sc) as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="k1")
        title = client.messages.create(
            model="mock-claude", max_tokens=4096, tools=[],
            system=[{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
                    {"type": "text", "text": TITLE_SYSTEM}],
            messages=[{"role": "user", "content": "<session>\ncreate hello.txt\n</session>\n\nWrite the title in "
                       "the language the user wrote in, regardless of the language of the examples above."}],
            extra_body={"output_config": {"format": {"type": "json_schema", "schema": {
                "type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}}})
        assert json.loads(title.content[0].text) == {"title": "write hello"}
        turn = client.messages.create(model="mock-claude", max_tokens=100,
                                      tools=[{"name": "Write", "input_schema": {"type": "object"}}],
                                      messages=[{"role": "user", "content": "create hello.txt"}])
        assert turn.content[0].type == "tool_use" and turn.content[0].name == "Write"
        s = server.session("k1")
        assert (s["side_calls"], s["consumed"], s["remaining"]) == (1, 1, 0)


def test_codexs_task_title_request_is_a_side_call() -> None:
    """Codex 0.169's TUI asks for a thread title with a tool-less Responses request."""
    import openai

    sc = load_scenario_text(SCENARIO, "t.yaml")
    with serve(sc) as server:
        client = openai.OpenAI(base_url=server.base_url + "/v1", api_key="k2")
        r = client.responses.create(model="mock-model", input=[{"role": "user", "content": (
            "Generate a concise, single-line task title of at most 36 characters and under five words where "
            "possible. Start with an imperative verb.\n\ncreate hello.txt")}])
        assert r.output_text == "write hello"
        s = server.session("k2")
        assert (s["side_calls"], s["consumed"]) == (1, 0)
