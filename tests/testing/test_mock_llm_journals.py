"""The same scenario played by the same official client over HTTP (``serve``) and over the
in-process transport (``MockLLM``) leaves identical journals, for every dialect the server
speaks (issue 30 requirement 1). A dialect is one driver here, written against a ``Clients``
(the client factories ``MockLLM`` has); the HTTP side builds the same clients on base URLs.

What legitimately differs, and is left out of the comparison: each request's ``time``, the
``host`` header (``127.0.0.1:PORT`` against ``autocue.mock``), and boto3's per-request
``x-amz-date`` and ``amz-sdk-invocation-id``. Bodies, paths, models, stream
flags, statuses, outcomes, the replies taken, the declared tools, the last message and every
other header are compared.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from dialect_drivers import CALLS, DRIVERS, FINAL, PROMPT, SCENARIO, HttpClients

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.wire.registry import all_apis
from autocue.testing.mock_llm import MockLLM

DIFFERS = ("time",)
"""Journal fields that legitimately differ between the two runs."""
DIFFERING_HEADERS = ("host", "x-amz-date", "amz-sdk-invocation-id")
"""The host, and what boto3 draws anew for each request: SigV4's date (the signature, in
``authorization``, is redacted in both journals) and its invocation id."""


def comparable(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in journal:
        r = {k: v for k, v in r.items() if k not in DIFFERS}
        r["headers"] = {k: v for k, v in r["headers"].items() if k not in DIFFERING_HEADERS}
        out.append(r)
    return out


@pytest.fixture(scope="module")
def server() -> Any:
    with serve(SCENARIO) as s:
        yield s


@pytest.mark.parametrize("api", [a.name for a in all_apis()])
def test_the_transport_and_http_leave_the_same_journal(server: MockLLMServer, api: str) -> None:
    driver = DRIVERS.get(api)
    if driver is None:
        pytest.fail(f"no driver for the wire API {api!r}: add one to DRIVERS in {__file__} (its official client, "
                    "built through a Clients factory)")
    key = f"journal-{api}"
    over_http = driver(HttpClients(server, key))
    with MockLLM(SCENARIO, api_key=key) as llm:
        in_process = driver(llm)
        assert over_http == in_process == (CALLS, FINAL)
        assert len(llm.requests(key)) == 2
        assert comparable(llm.requests(key)) == comparable(server.requests(key))
        assert llm.session(key)["remaining"] == 0
        llm.assert_all_consumed()
        llm.assert_ok()
    assert all(e.status == 200 for e in llm.exchanges)


def test_the_comparison_sees_a_difference() -> None:
    """The journals compared above would differ if a body did: a different prompt is seen."""
    with MockLLM(SCENARIO, api_key="a") as one, MockLLM(SCENARIO, api_key="a") as two:
        for llm, prompt in ((one, PROMPT), (two, PROMPT + "?")):
            with httpx2.Client(transport=llm.transport()) as c:
                c.post(llm.openai_base_url + "/chat/completions", headers={"authorization": "Bearer a"},
                       json={"model": "m", "messages": [{"role": "user", "content": prompt}]})
        assert comparable(one.requests("a")) != comparable(two.requests("a"))
