"""One scenario file plays identically on every dialect that carries its content: each official
client runs the same two-step tool loop against ``autocue serve`` and sees the same tool calls
and the same final answer (issue 29 requirement 7). The drivers, one per wire API, are
``tests/_support/dialect_drivers.py``'s (the in-process journal test plays them too); the
Responses WebSocket mode, which only a socket carries, has its driver here."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from dialect_drivers import CALLS, DRIVERS, FINAL, PROMPT, SCENARIO, SCHEMA, WEATHER, Calls, Clients, HttpClients

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.wire.registry import all_apis


def _responses_websocket(clients: Clients) -> tuple[Calls, str]:
    c = clients.openai(max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": False}]

    def until_done(conn: Any) -> Any:
        for event in conn:
            if event.type == "response.completed":
                return event.response
            assert event.type != "error", event
        raise AssertionError("the socket closed before response.completed")

    with c.responses.connect() as conn:
        conn.response.create(model="gpt-x", input=PROMPT, tools=tools)
        first = until_done(conn)
        fcs = [o for o in first.output if o.type == "function_call"]
        conn.response.create(model="gpt-x", previous_response_id=first.id, tools=tools, input=[
            {"type": "function_call_output", "call_id": f.call_id, "output": WEATHER[json.loads(f.arguments)["city"]]}
            for f in fcs])
        final = until_done(conn)
    return [(f.name, json.loads(f.arguments)) for f in fcs], final.output_text


PLAYED: dict[str, Callable[[Clients], tuple[Calls, str]]] = {**DRIVERS, "responses-websocket": _responses_websocket}


@pytest.fixture(scope="module")
def server() -> Any:
    with serve(SCENARIO) as s:
        yield s


def test_every_wire_api_has_a_driver() -> None:
    assert {a.name for a in all_apis()} <= set(PLAYED)


@pytest.mark.parametrize("dialect", sorted(PLAYED))
def test_one_scenario_plays_the_same_on_every_dialect(server: MockLLMServer, dialect: str) -> None:
    key = f"every-{dialect}"
    assert PLAYED[dialect](HttpClients(server, key)) == (CALLS, FINAL)
    status = server.session(key)
    assert (status["consumed"], status["remaining"]) == (2, 0), status
