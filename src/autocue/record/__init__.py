"""``autocue record``: a recording proxy for the mock server's wire protocols; real traffic becomes scenarios.

``RecordingProxy`` (the ASGI app) forwards every request to an upstream unchanged, streams the
reply back as it arrives and writes one scenario per client session; ``Redactor`` keeps secrets
out of the files; ``Recording`` renders one session as scenario YAML; ``parse_reply`` reads a
recorded reply with autocue's own provider parsers; ``RecordingServer`` runs the proxy on a
loopback port in a thread (tests, benchmarks). See docs/record.md.
"""

from __future__ import annotations

from autocue.record.capture import parse_reply
from autocue.record.proxy import API_CHOICES, RecordingProxy, RecordOptions
from autocue.record.server import RecordingServer
from autocue.scenario.redact import DEFAULT_PATTERNS, REDACTED, RedactionError, Redactor
from autocue.scenario.writer import Recording

__all__ = [
    "API_CHOICES",
    "DEFAULT_PATTERNS",
    "REDACTED",
    "RecordOptions",
    "Recording",
    "RecordingProxy",
    "RecordingServer",
    "RedactionError",
    "Redactor",
    "parse_reply",
]
