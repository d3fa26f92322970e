"""A large synthetic pi session file (for the viewer's tests and benchmarks): ``write_big_session(path, n)``.

Every fourth entry is a user prompt, then an assistant message with thinking, text and a
tool call, then the tool's result (every 97th result is an error), on one linear branch.
"""

from __future__ import annotations

from pathlib import Path

import orjson


def write_big_session(path: Path, entries: int) -> Path:
    lines = [orjson.dumps({"type": "session", "version": 3, "id": "0190a0b0-0000-7000-8000-000000000000",
                           "timestamp": "2026-11-22T00:00:00.000Z", "cwd": "/workspace"})]
    parent: str | None = None
    for i in range(entries):
        eid = f"{i:08x}"
        ts = f"2026-11-22T{(i // 3_600_000) % 24:02d}:{(i // 60_000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z"
        kind = i % 4
        call = f"call_{i - 1 if kind == 2 else i}"
        if kind == 0 or kind == 3:
            msg = {"role": "user", "content": [{"type": "text", "text": f"step {i}: please look at module_{i}.py"}],
                   "timestamp": i}
        elif kind == 1:
            msg = {"role": "assistant", "content": [
                {"type": "thinking", "thinking": f"I should read module_{i}.py first"},
                {"type": "text", "text": f"Reading module_{i}.py"},
                {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": f"module_{i}.py"}}],
                "api": "anthropic-messages", "provider": "mock", "model": "mock-1",
                "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
                          "cost": {"input": 0.0003, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0,
                                   "total": 0.0006}},
                "stopReason": "toolUse", "timestamp": i}
        else:
            err = i % 97 == 2
            msg = {"role": "toolResult", "toolCallId": call, "toolName": "read",
                   "content": [{"type": "text", "text": f"ENOENT module_{i - 1}.py" if err else f"def f_{i}(): pass"}],
                   "isError": err, "timestamp": i}
        lines.append(orjson.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts,
                                   "message": msg}))
        parent = eid
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


__all__ = ["write_big_session"]
