"""Server behaviour: sessions, scenario choice, checks, admin, limits, timing, recording."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
from mockllm_helpers import call, say, tools_script

from autocue.llm.types import TextContent
from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.reply import build_reply
from autocue.script import Check, Script, ScriptedResponse, Turn
from autocue.yamlpos import Pos


def chat(server: MockLLMServer, text: str = "hi", key: str = "k", path: str = "/v1/chat/completions",
         **headers: str) -> httpx2.Response:
    return httpx2.post(server.base_url + path, json={"model": "m", "messages": [{"role": "user", "content": text}]},
                       headers={"authorization": f"Bearer {key}", **headers})


def text_of(r: httpx2.Response) -> str:
    assert r.status_code == 200, r.text
    return str(r.json()["choices"][0]["message"]["content"])


def counting(name: str, n: int = 3, prompt: str | None = "hi") -> Script:
    return Script([Turn(prompt, [say(f"{name} {i}") for i in range(n)])], name=name)


def test_sessions_by_key_are_independent_and_concurrent() -> None:
    with serve(counting("c", 20)) as server:
        def run(key: str) -> list[str]:
            with httpx2.Client() as client:
                return [client.post(server.base_url + "/v1/chat/completions", headers={"x-api-key": key},
                                    json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}
                                    ).json()["choices"][0]["message"]["content"] for _ in range(20)]

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(run, [f"key{i}" for i in range(8)]))
        assert all(r == [f"c {i}" for i in range(20)] for r in results)
        assert sorted(s["session"] for s in server.sessions()) == sorted(f"key{i}" for i in range(8))


def test_concurrent_requests_in_one_session_get_consecutive_replies() -> None:
    with serve(counting("c", 40)) as server, ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: text_of(chat(server)), range(40)))
        assert sorted(got, key=lambda t: int(t.split()[1])) == [f"c {i}" for i in range(40)]
        assert server.session("k")["remaining"] == 0


def test_session_keys_from_every_header_and_path_prefix() -> None:
    with serve(counting("c")) as server:
        assert text_of(chat(server, key="a")) == "c 0"
        r = httpx2.post(server.base_url + "/v1/chat/completions", headers={"api-key": "a"},
                        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        assert text_of(r) == "c 1", "api-key header: same session as Bearer a"
        assert text_of(chat(server, key="a", path="/s/other/v1/chat/completions")) == "c 0"
        assert text_of(chat(server, key="zzz", path="/s/other/v1/chat/completions")) == "c 1"
        assert {s["session"] for s in server.sessions()} == {"a", "other"}


def test_scenario_choice_by_header_prefix_and_prompt() -> None:
    scripts = [counting("alpha", prompt="write a poem about cats"), counting("beta", prompt="fix the failing test")]
    with serve(scripts) as server:
        assert text_of(chat(server, key="1", **{"x-scenario-name": "beta"})) == "beta 0"
        assert text_of(chat(server, key="2", path="/scenario/alpha/v1/chat/completions")) == "alpha 0"
        assert text_of(chat(server, key="3", path="/s/x/scenario/beta/chat/completions")) == "beta 0"
        assert text_of(chat(server, "Please fix the failing test in foo.py", key="4")) == "beta 0"
        assert text_of(chat(server, "write a poem about a cat", key="5")) == "alpha 0"
        by = {s["key"]: s["selected_by"] for s in server.sessions()}
        assert by["4"] == "prompt (contained)" and by["5"].startswith("prompt (similarity")
        r = chat(server, "something else entirely", key="6")
        assert r.status_code == 404 and "no scenario matches" in r.json()["error"]["message"]
        r = chat(server, key="7", **{"x-scenario-name": "gamma"})
        assert r.status_code == 404 and "alpha, beta" in r.json()["error"]["message"]


def test_same_key_different_scenarios_get_separate_cursors() -> None:
    with serve([counting("alpha"), counting("beta")]) as server:
        assert text_of(chat(server, **{"x-scenario-name": "alpha"})) == "alpha 0"
        assert text_of(chat(server, **{"x-scenario-name": "beta"})) == "beta 0"
        assert text_of(chat(server, **{"x-scenario-name": "alpha"})) == "alpha 1"


def test_checks_run_before_the_next_reply(tmp_path: Path) -> None:
    seen: list[str] = []

    def saw_result(req: Any) -> bool:
        seen.append(req.last_message()["role"])
        return req.last_message()["role"] == "tool"

    script = Script([Turn("go", [ScriptedResponse([call("bash", {"command": "touch out.txt"})]), say("done")],
                          checks=[Check(1, saw_result, Pos("s.yaml", 7, 1)),
                                  Check(1, {"fs": {"exists": ["out.txt"]}}, Pos("s.yaml", 9, 1))])], name="chk")
    with serve(script, workspace=tmp_path) as server:
        url = server.base_url + "/v1/chat/completions"
        msgs: list[Any] = [{"role": "user", "content": "go"}]
        r = httpx2.post(url, json={"model": "m", "messages": msgs})
        tc = r.json()["choices"][0]["message"]["tool_calls"][0]
        msgs += [{"role": "assistant", "content": None, "tool_calls": [tc]},
                 {"role": "tool", "tool_call_id": tc["id"], "content": "ok"}]
        r = httpx2.post(url, json={"model": "m", "messages": msgs})
        assert r.status_code == 422
        err = r.json()["error"]["message"]
        assert "assertion failed before reply 2 (turn 1, step 2)" in err and "out.txt" in err and "s.yaml:9" in err
        s = server.session("default")
        assert s["consumed"] == 1 and s["assertions_failed"] == 1
        assert [a["passed"] for a in s["assertions"]] == [True, False]
        (tmp_path / "out.txt").write_text("x")
        r = httpx2.post(url, json={"model": "m", "messages": msgs})
        assert text_of(r) == "done"
        s = server.session("default")
        assert [a["passed"] for a in s["assertions"]] == [True, False, True, True]
        assert seen == ["tool", "tool"]


def test_admin_endpoints(tmp_path: Path) -> None:
    with serve([counting("c"), tmp_path]) as server:  # files in tmp_path may be loaded later
        base = server.base_url
        chat(server)
        chat(server)
        s = httpx2.get(base + "/_autocue/sessions").json()["sessions"][0]
        assert (s["session"], s["consumed"], s["remaining"], s["last"], s["next"]) == ("k", 2, 1, 'say("c 1")',
                                                                                     'say("c 2")')
        assert httpx2.get(base + "/_autocue/sessions/k").json()["consumed"] == 2
        assert httpx2.get(base + "/_autocue/sessions/nope").status_code == 404
        assert httpx2.post(base + "/_autocue/sessions/k/reset", json={}).json() == {"reset": 1}
        assert text_of(chat(server)) == "c 0"
        assert httpx2.post(base + "/_autocue/reset", json={}).json() == {"reset": 1}
        f = tmp_path / "late.yaml"
        f.write_text("name: late\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [10, 'late reply']\n")
        r = httpx2.post(base + "/_autocue/scenarios", json={"path": str(f)})
        assert r.json()["loaded"] == ["late"], r.text
        assert text_of(chat(server, key="n", **{"x-scenario-name": "late"})) == "late reply"
        r = httpx2.post(base + "/_autocue/scenarios", json={"yaml": "name: inline\ntimeline:\n  - assistant: "
                                                                    "[[1, 'inline reply']]\n"})
        assert r.json()["loaded"] == ["inline"], r.text
        assert text_of(chat(server, key="n", path="/scenario/inline/v1/chat/completions")) == "inline reply"
        names = [x["name"] for x in httpx2.get(base + "/_autocue/scenarios").json()["scenarios"]]
        assert names == ["c", "late", "inline"]
        r = httpx2.post(base + "/_autocue/scenarios", json={"path": str(tmp_path / "missing.yaml")})
        assert r.status_code == 400 and "does not exist" in r.json()["error"]["message"]


def test_head_root_models_404_413_and_malformed_json() -> None:
    with serve(counting("c"), max_body=1000) as server:
        base = server.base_url
        assert httpx2.head(base + "/").status_code == 200
        models = httpx2.get(base + "/v1/models").json()
        assert [m["id"] for m in models["data"]] == ["autocue-mock", "c"]
        assert httpx2.get(base + "/v1/models/gpt-x").json()["id"] == "gpt-x"
        r = httpx2.post(base + "/v1/messages", content=b"{not json", headers={"x-api-key": "k"})
        assert r.status_code == 400 and r.json()["type"] == "error"
        assert r.json()["error"]["type"] == "invalid_request_error" and "malformed JSON" in r.json()["error"]["message"]
        r = httpx2.post(base + "/v1/chat/completions", content=b"[1, 2]")
        assert r.status_code == 400 and "JSON object" in r.json()["error"]["message"]
        big = {"model": "m", "messages": [{"role": "user", "content": "x" * 2000}]}
        r = httpx2.post(base + "/v1/chat/completions", json=big)
        assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"

        def chunked() -> Any:
            yield b'{"model": "m", "messages": ['
            for _ in range(50):
                yield b'{"role": "user", "content": "' + b"y" * 100 + b'"},'
            yield b"]}"

        r = httpx2.post(base + "/v1/messages", content=chunked())
        assert r.status_code == 413 and r.json()["error"]["type"] == "request_too_large"
        r = httpx2.post(base + "/v2/whatever", json={})
        assert r.status_code == 404
        assert server.sessions() == [], "rejected requests create no session"


def test_binds_loopback_with_nodelay() -> None:
    with serve(counting("c")) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        sock = server._sock
        assert sock is not None
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert sock.getsockname()[0] == "127.0.0.1"


def test_speed_scales_delays_and_streams_in_timed_segments() -> None:
    resp = ScriptedResponse([TextContent("a"), TextContent("b")], chunk_delays_ms=[500, 200, 100])
    assert [b.delay for b in build_reply(resp, api="chat", seed="s", input_tokens=1).blocks] == [0.0, 0.0]
    reply = build_reply(resp, api="chat", seed="s", input_tokens=1, speed=0.01)
    assert [round(b.delay, 6) for b in reply.blocks] == [0.005, 0.003]
    script = Script([Turn("hi", [resp])], name="timed")
    with serve(script, speed=0.001) as server:
        with httpx2.stream("POST", server.base_url + "/v1/messages", headers={"x-api-key": "k"},
                           json={"model": "m", "max_tokens": 5, "stream": True,
                                 "messages": [{"role": "user", "content": "hi"}]}) as r:
            assert r.headers.get("transfer-encoding") == "chunked"
            text = b"".join(r.iter_bytes()).decode()
        assert text.count("event: content_block_start") == 2 and text.endswith('data: {"type":"message_stop"}\n\n')


def test_side_call_title_generation_does_not_consume() -> None:
    with serve(counting("my_scenario")) as server:
        r = httpx2.post(server.base_url + "/v1/chat/completions", json={"model": "m", "messages": [
            {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
            {"role": "user", "content": "hi"}]})
        assert text_of(r) == "my scenario"
        assert text_of(chat(server, key="default")) == "my_scenario 0"
        s = server.session("default")
        assert (s["side_calls"], s["consumed"]) == (1, 1)


def test_record_dir_and_strict_tools(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    with serve(tools_script(), strict_tools=True, record_dir=rec) as server:
        url = server.base_url + "/v1/chat/completions"
        body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "list the files"}],
                                "tools": [{"type": "function", "function": {"name": "weird_tool"}}]}
        r = httpx2.post(url, json=body, headers={"authorization": "Bearer secret"})
        assert r.status_code == 400
        msg = r.json()["error"]["message"]
        assert "no tool profile matches" in msg and "bash, read" in msg and "weird_tool" in msg
        files = sorted(rec.rglob("*.json"))
        assert files, "unmatched requests are saved"
        saved = json.loads(files[-1].read_text())
        assert saved["declared_tools"] == ["weird_tool"] and saved["headers"]["authorization"] == "<redacted>"
        # pi's tools: detected profile "pi"; bash and read are declared, so the request passes
        body["tools"] = [{"type": "function", "function": {"name": n}} for n in ("read", "bash", "edit", "write")]
        r = httpx2.post(url, json=body, headers={"authorization": "Bearer ok"})
        assert r.status_code == 200, r.text
        assert server.session("ok")["profile"] == "pi"


def test_profile_maps_scenario_tools_to_the_agents() -> None:
    script = Script([Turn("go", [ScriptedResponse([call("runCmd", {"cmd": "ls -la", "cwd": "."}),
                                                   call("readFile", {"path": "a.txt"})])])], name="p")
    with serve(script) as server:
        r = httpx2.post(server.base_url + "/v1/messages", headers={"x-api-key": "cc"}, json={
            "model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}],
            "tools": [{"name": n, "input_schema": {}} for n in ("Bash", "Read", "Write", "Edit", "Agent")]})
        uses = [(b["name"], b["input"]) for b in r.json()["content"]]
        assert uses == [("Bash", {"command": "ls -la"}), ("Read", {"file_path": "a.txt"})]
        assert server.session("cc")["profile"] == "claude-code"
        r = httpx2.post(server.base_url + "/v1/messages", headers={"x-api-key": "raw"}, json={
            "model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}]})
        assert [b["name"] for b in r.json()["content"]] == ["runCmd", "readFile"], "no profile: unchanged"
    with serve(script, profile="codex") as server:
        r = httpx2.post(server.base_url + "/v1/responses", json={"model": "m", "input": "go"})
        names = [o["name"] for o in r.json()["output"]]
        assert set(names) == {"exec_command"}
    with serve(script) as server:
        r = httpx2.post(server.base_url + "/v1/messages", headers={"x-autocue-profile": "gemini-cli"}, json={
            "model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}]})
        assert [b["name"] for b in r.json()["content"]] == ["run_shell_command", "read_file"]


def test_record_dir_never_writes_through_a_planted_link_or_over_a_file(tmp_path: Path) -> None:
    """Issue 27 req 12b: the saved request was written with write_bytes, through a symlink at its name."""
    rec = tmp_path / "rec"
    (rec / "chat").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("not autocue's\n")
    (rec / "chat" / "0001-secret.json").symlink_to(victim)
    (rec / "chat" / "0002-secret.json").write_text("an earlier run's\n")
    with serve(tools_script(), strict_tools=True, record_dir=rec) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "list the files"}],
                "tools": [{"type": "function", "function": {"name": "weird_tool"}}]}
        r = httpx2.post(server.base_url + "/v1/chat/completions", json=body, headers={"authorization": "Bearer secret"})
        assert r.status_code == 400
        saved = Path(r.json()["error"]["message"].rsplit("Request saved to ", 1)[1].rstrip("."))
    assert victim.read_text() == "not autocue's\n"
    assert (rec / "chat" / "0002-secret.json").read_text() == "an earlier run's\n"
    assert saved.name not in ("0001-secret.json", "0002-secret.json") and not saved.is_symlink()
    assert json.loads(saved.read_text())["declared_tools"] == ["weird_tool"]


def test_record_dir_never_shows_the_api_key_in_a_file_or_its_name(tmp_path: Path) -> None:
    """The session key of a request without x-session-key is its API key: the saved request's name and
    its ``session`` field showed it."""
    rec = tmp_path / "rec"
    key = "sk-private-record-dir-key-31415926"
    with serve(tools_script(), strict_tools=True, record_dir=rec) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "list the files"}],
                "tools": [{"type": "function", "function": {"name": "weird_tool"}}]}
        r = httpx2.post(server.base_url + "/v1/chat/completions", json=body, headers={"authorization": f"Bearer {key}"})
        assert r.status_code == 400 and key not in r.text
    files = sorted(rec.rglob("*.json"))
    assert files and all(f.name.endswith("-REDACTED.json") for f in files), files
    for f in files:
        assert key not in f.read_text() and json.loads(f.read_text())["session"] == "[REDACTED]"
