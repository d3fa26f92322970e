"""``Reply``: one scripted response, resolved for the wire.

``build_reply`` turns a ``ScriptedResponse`` into the blocks every wire renderer shares:
text, thinking (with a signature) and tool calls (with a deterministic id, the agent's tool
name and arguments after the session's tool profile, and the arguments as a JSON string).
Renderers only format; they never look at the script again. Token counts are cheap
deterministic estimates (characters / 4) unless the step scripts its own ``usage``.

Timing: ``ScriptedResponse.chunk_delays_ms[i]`` is the delay before content block ``i``
starts streaming (already multiplied by the server's ``speed`` here; 0 means no delay).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from autocue.llm.types import StopReason, TextContent, ThinkingContent
from autocue.mockllm.ids import make_id, signature
from autocue.script.model import ScriptedResponse, ScriptedToolCall

BlockKind = Literal["text", "thinking", "call"]
CallMapper = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]
"""``(scenario_tool, args) -> (agent_tool, agent_args)`` (a tool profile's ``map_call``)."""


@dataclass(slots=True)
class Block:
    kind: BlockKind
    text: str = ""
    """Text or thinking text."""
    signature: str = ""
    """Thinking signature (Anthropic ``signature_delta``, Gemini ``thoughtSignature``)."""
    id: str = ""
    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    args_json: str = "{}"
    delay: float = 0.0
    """Seconds to wait before this block streams."""


@dataclass(slots=True)
class Reply:
    blocks: list[Block]
    stop_reason: StopReason
    seed: str
    """``"<session>:<step>"``: the seed of every id in this reply."""
    input_tokens: int = 0
    output_tokens: int = 0
    thinking_tokens: int = 0
    cache_read: int = 0

    @property
    def total_delay(self) -> float:
        total = 0.0
        for b in self.blocks:  # (a loop: a comprehension is a function call more on CPython 3.11)
            total += b.delay
        return total

    @property
    def has_calls(self) -> bool:
        return "call" in [b.kind for b in self.blocks]


def _tokens(n_chars: int) -> int:
    return (n_chars + 3) // 4


def build_reply(
    resp: ScriptedResponse,
    *,
    api: str,
    seed: str,
    input_tokens: int,
    mapper: CallMapper | None = None,
    speed: float = 0.0,
    tool_id_prefix: str = "call_",
) -> Reply:
    """Resolve ``resp`` for the wire API ``api``; its tool ids take ``tool_id_prefix`` (the API's
    ``WireApi.tool_id_prefix``)."""
    blocks: list[Block] = []
    delays = resp.chunk_delays_ms
    out_chars = 0
    think_chars = 0
    prefix = tool_id_prefix
    for i, b in enumerate(resp.content):
        delay = 0.0
        if speed > 0 and delays is not None and i < len(delays):
            delay = max(0.0, delays[i]) * speed / 1000.0
        if isinstance(b, TextContent):
            blocks.append(Block("text", b.text, delay=delay))
            out_chars += len(b.text)
        elif isinstance(b, ThinkingContent):
            sig = b.thinking_signature or signature(seed, i)
            blocks.append(Block("thinking", b.thinking, sig, delay=delay))
            think_chars += len(b.thinking)
        elif isinstance(b, ScriptedToolCall):
            args = b.resolve()
            name = b.name
            if mapper is not None:
                name, args = mapper(name, args)
            call_id = b.id if b.id else make_id(prefix, seed, i)
            raw = orjson.dumps(args).decode()
            blocks.append(Block("call", id=call_id, name=name, args=args, args_json=raw, delay=delay))
            out_chars += len(raw) + len(name)
    if speed > 0 and delays is not None and len(delays) > len(resp.content) and blocks:
        # Extra delays (more timed pieces than blocks) are spent before the last block ends.
        blocks[-1].delay += sum(max(0.0, d) for d in delays[len(resp.content):]) * speed / 1000.0
    usage = resp.usage
    if usage is not None:
        return Reply(blocks, resp.effective_stop_reason(), seed, usage.input, usage.output, _tokens(think_chars),
                     usage.cache_read)
    thinking_tokens = _tokens(think_chars)
    return Reply(blocks, resp.effective_stop_reason(), seed, input_tokens,
                 max(1, _tokens(out_chars) + thinking_tokens), thinking_tokens)
