"""OpenTelemetry out: autocue's spans with the GenAI semantic conventions (docs/telemetry.md).

Off by default, and then nothing of OpenTelemetry is imported: ``TRACER`` is ``None`` and every
hook of the mock server, the runner and the harness is one ``is not None`` test. ``configure``
(``--otel``, ``--otel-file PATH``, the pytest option ``--autocue-otel``, or
``OTEL_EXPORTER_OTLP_ENDPOINT`` set) loads the official SDK (the ``autocue[otel]`` extra) and
exports over OTLP/HTTP or to a file of JSON lines (the SDK's own span JSON, one span a line).

Parents: a request's W3C ``traceparent`` (the client's span) first; else the scenario run bound to
the request's session key (``bind``: the runner's in-process server); else a new trace.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autocue.telemetry.sdk import RunSpan, SessionSpan, Telemetry

__all__ = ["ENDPOINT_ENV", "TRACER", "TRACES_ENDPOINT_ENV", "agent_env", "bind",
           "configure", "shutdown", "start_run", "start_session", "wanted"]

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"

TRACER: Telemetry | None = None
"""The active telemetry (``configure``), or ``None``: off."""


def wanted(flag: bool = False, file: str | None = None) -> bool:
    """Telemetry is asked for: the flag, a file, or an OTLP endpoint in the environment."""
    return bool(flag or file or os.environ.get(ENDPOINT_ENV) or os.environ.get(TRACES_ENDPOINT_ENV))


def configure(*, file: str | None = None, endpoint: str | None = None, service: str = "autocue") -> Telemetry:
    """Start exporting (idempotent: a second call returns the active one): to ``file`` (JSON lines), else
    over OTLP/HTTP to ``endpoint`` (else the SDK's ``OTEL_EXPORTER_OTLP_*`` environment, else
    ``http://localhost:4318``). Raises ``MissingExtraError`` without the ``otel`` extra."""
    global TRACER
    if TRACER is not None:
        return TRACER
    from autocue.errors import require_extra

    try:
        import opentelemetry.sdk.trace  # the extra's packages, checked before autocue's module loads them

        if file is None:
            import opentelemetry.exporter.otlp.proto.http  # noqa: F401
    except ModuleNotFoundError as e:
        raise require_extra(e, "opentelemetry", "otel", "OpenTelemetry export (--otel)") from None
    from autocue.telemetry.sdk import Telemetry

    TRACER = Telemetry.start(file=file, endpoint=endpoint, service=service)
    return TRACER


def shutdown() -> None:
    """Flush and stop the exporter (tool calls whose result never came are exported first)."""
    global TRACER
    t, TRACER = TRACER, None
    if t is not None:
        t.close()


def bind(session_key: str, run: RunSpan | None) -> None:
    """Requests of ``session_key`` without a ``traceparent`` of their own become children of ``run``."""
    if TRACER is not None and run is not None:
        TRACER.bind(session_key, run)


def start_run(name: str, file: str) -> RunSpan | None:
    """The span of one scenario run (``None`` when off); ``RunSpan.end`` records its result, ``close`` ends it."""
    t = TRACER
    return None if t is None else t.start_run(name, file)


def start_session() -> SessionSpan | None:
    """The span of one harness ``TestSession`` (``None`` when off), named after the running pytest test."""
    t = TRACER
    return None if t is None else t.start_session(os.environ.get("PYTEST_CURRENT_TEST", "").rpartition(" (")[0])


def agent_env(env: dict[str, str], run: RunSpan | None) -> dict[str, str]:
    """``env`` with ``TRACEPARENT`` (and the OTLP endpoint in use) so an instrumented agent joins ``run``'s trace."""
    if run is None:
        return env
    return {**env, **run.child_env()}
