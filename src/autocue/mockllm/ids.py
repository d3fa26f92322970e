"""Deterministic ids for the mock server.

Every id is derived from a seed string (``"<session>:<step>"``) and a position, hashed with
BLAKE2b, so the same session playing the same script always sends the same ids. Each API
gets the prefix its real server uses: ``toolu_`` (Anthropic), ``call_`` (OpenAI),
``msg_`` / ``chatcmpl-`` / ``resp_`` / ``rs_`` / ``fc_`` for messages and items.
"""

from __future__ import annotations

import base64
from hashlib import blake2b


def digest(seed: str, *parts: object, size: int = 12) -> str:
    """Hex digest (``2 * size`` characters) of the seed and parts."""
    h = blake2b(seed.encode(), digest_size=size)
    for p in parts:
        h.update(b"\x1f")
        h.update(str(p).encode())
    return h.hexdigest()


def make_id(prefix: str, seed: str, *parts: object) -> str:
    """``prefix`` + 24 hex characters derived from ``seed`` and ``parts``."""
    return prefix + digest(seed, *parts)


def signature(seed: str, *parts: object) -> str:
    """An opaque, base64-looking thinking signature (deterministic)."""
    raw = blake2b(seed.encode() + b"\x1fsig\x1f" + "\x1f".join(map(str, parts)).encode(), digest_size=48).digest()
    return base64.b64encode(raw).decode()
