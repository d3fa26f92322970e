"""Run ``autocue`` as a subprocess against a ``WireServer`` configured through models.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from provider_wire_server import Reply, WireServer, sse


def setup_home(tmp: Path, server: WireServer, api: str = "openai-completions") -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    base = server.url + ("/v1" if api.startswith("openai") else "")
    (home / "models.json").write_text(
        json.dumps(
            {
                "default_model": "mock/mock-gpt",
                "providers": {
                    "mock": {
                        "base_url": base,
                        "api": api,
                        "api_key": "k-test",
                        "models": [{"id": "mock-gpt", "context_window": 100000, "max_tokens": 1000}],
                    }
                },
            }
        )
    )
    # Fast retries for tests.
    (home / "settings.json").write_text(json.dumps({"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "AUTOCUE_"))}
    env["AUTOCUE_DIR"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_cli(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def chat_text(text: str) -> Reply:
    return Reply(
        chunks=[
            sse(
                None,
                {
                    "id": "c1",
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}],
                },
            ),
            sse(
                None,
                {
                    "id": "c1",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3},
                },
            ),
            b"data: [DONE]\n\n",
        ]
    )


def chat_tool(name: str, args: dict[str, Any], call_id: str = "call_1") -> Reply:
    return Reply(
        chunks=[
            sse(
                None,
                {
                    "id": "c2",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {
                                        "index": 0,
                                        "id": call_id,
                                        "type": "function",
                                        "function": {"name": name, "arguments": ""},
                                    }
                                ]
                            },
                            "finish_reason": None,
                        }
                    ],
                },
            ),
            sse(
                None,
                {
                    "id": "c2",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(args)}}]},
                            "finish_reason": None,
                        }
                    ],
                },
            ),
            sse(None, {"id": "c2", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            b"data: [DONE]\n\n",
        ]
    )
