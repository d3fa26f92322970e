"""Deterministic embedding vectors: the same text gives the same vector on every run and machine.

A vector is a signed feature hash of the text's words and of its character trigrams (BLAKE2b,
seeded by ``SEED``), scaled to unit length: texts that share words point the same way, so a
retrieval test over an in-memory store finds the passage that shares the query's words, and
different texts differ. The empty text gets a fixed unit vector. A wire API reads the inputs of
an embeddings request (``WireApi.embed_request``) and writes the vectors back in its own shape
(``WireApi.embed_body``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SEED = b"autocue-embed-1"
DEFAULT_DIMENSIONS = 1536
"""Dimensions when the request names none (OpenAI's ``text-embedding-3-small``)."""
MAX_DIMENSIONS = 16384
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(slots=True)
class EmbedRequest:
    """An embeddings request as autocue reads it, whatever its API."""

    texts: list[str]
    model: str
    dimensions: int | None = None
    """The dimensions asked for (None: the API's default)."""
    options: dict[str, Any] = field(default_factory=dict)
    """What the API's answer repeats (OpenAI's ``encoding_format``, Cohere's ``input_type``)."""
    default_dimensions: int = DEFAULT_DIMENSIONS
    """The API's dimensions when the request asks for none (and the scenario scripts none)."""

    @property
    def input_tokens(self) -> int:
        return sum(max(1, len(t) // 4) for t in self.texts)


def _features(text: str) -> list[str]:
    low = text.lower()
    words = _WORD.findall(low)
    grams = [f"#{w[i:i + 3]}" for w in words if len(w) > 3 for i in range(len(w) - 2)]
    return words + grams


def vector(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    """The unit vector of ``text`` with ``dimensions`` components."""
    if not 1 <= dimensions <= MAX_DIMENSIONS:
        raise ValueError(f"dimensions must be between 1 and {MAX_DIMENSIONS}, got {dimensions}")
    v = [0.0] * dimensions
    feats = _features(text) or ["\x00empty"]
    for f in feats:
        h = hashlib.blake2b(f.encode(), digest_size=8, key=SEED).digest()
        n = int.from_bytes(h, "little")
        v[n % dimensions] += 1.0 if (n >> 63) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in v))
    if norm == 0.0:  # every feature cancelled out: fall back to the text's own hash
        h = hashlib.blake2b(text.encode(), digest_size=8, key=SEED).digest()
        v[int.from_bytes(h, "little") % dimensions] = 1.0
        return v
    return [round(x / norm, 8) for x in v]


def vectors(req: EmbedRequest, default_dimensions: int = DEFAULT_DIMENSIONS,
            scripted: Mapping[str, list[float] | str] | None = None) -> list[list[float]]:
    """One vector per input: the scenario's scripted vector for that exact text when there is one
    (a ``str`` value: the vector of that other text), else the text's hash vector. ``ValueError`` when
    the request asks for dimensions a scripted vector does not have."""
    dims = req.dimensions or default_dimensions
    out: list[list[float]] = []
    for t in req.texts:
        s = scripted.get(t) if scripted else None
        if isinstance(s, str):
            s = vector(s, dims)
        if s is not None and len(s) != dims:
            raise ValueError(f"the scenario scripts a vector of {len(s)} dimensions for {t[:80]!r}, and the "
                             f"request asks for {dims}: drop `dimensions` from the request or script "
                             f"{dims}-dimensional vectors (server.embeddings)")
        out.append(list(s) if s is not None else vector(t, dims))
    return out
