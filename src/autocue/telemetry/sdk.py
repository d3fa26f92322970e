"""The OpenTelemetry SDK side of ``autocue.telemetry`` (imported only once telemetry is on).

Spans (names and attributes of the GenAI semantic conventions, ``gen_ai.*``; autocue's own under
``autocue.*``):

- ``invoke_agent {runner}``: one scenario run of the runner (``RunSpan``);
- ``chat {model}`` / ``embeddings {model}``: one model request the mock server answered (kind SERVER);
- ``execute_tool {name}``: one tool call of a reply, from the reply that made it to the request that
  carried its result back (its parent: the request span that made the call).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import Span, SpanContext, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from autocue import __version__

PENDING_CAP = 10_000
"""Tool calls waiting for their result, at most (the oldest is exported as unanswered beyond)."""
MAX_FAILURES = 10
"""Failure messages kept on a run span."""

_PROPAGATOR = TraceContextTextMapPropagator()


def _file_line(span: ReadableSpan) -> str:
    return str(span.to_json(indent=None)) + "\n"


@dataclass(slots=True)
class _Call:
    name: str
    at: int
    """When the reply that made the call was answered (ns since the epoch)."""
    parent: SpanContext
    session: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    name: str
    is_error: bool


class RunSpan:
    """The span of one scenario run: ``end`` records its result; the runner binds the run's session to it."""

    def __init__(self, owner: Telemetry, span: Span) -> None:
        self.owner = owner
        self.span = span
        self.keys: list[str] = []

    def child_env(self) -> dict[str, str]:
        carrier: dict[str, str] = {}
        _PROPAGATOR.inject(carrier, trace.set_span_in_context(self.span))
        env = {k.upper(): v for k, v in carrier.items()}
        if self.owner.endpoint:
            env.setdefault("OTEL_EXPORTER_OTLP_ENDPOINT", self.owner.endpoint)
        return env

    def end(self, *, runner: str, failures: Sequence[tuple[str, str]], interrupted: bool = False) -> None:
        """The run's result: its runner (the agent), its failures as ``(kind, message)``."""
        s = self.span
        if runner:
            s.update_name(f"invoke_agent {runner}")
            s.set_attribute("gen_ai.agent.name", runner)
        s.set_attribute("autocue.run.result", "interrupted" if interrupted else "failed" if failures else "passed")
        s.set_attribute("autocue.run.failures", len(failures))
        if failures:
            s.set_attribute("autocue.run.failure_kinds", sorted({k for k, _ in failures}))
            s.set_attribute("autocue.run.failure_messages", [f"{k}: {m}"[:500] for k, m in failures[:MAX_FAILURES]])
            s.set_status(Status(StatusCode.ERROR, f"{len(failures)} failure(s): {failures[0][1]}"[:500]))
            s.set_attribute("error.type", failures[0][0])

    def close(self) -> None:
        for k in self.keys:
            self.owner.unbind(k, self)
        self.span.end()


class SessionSpan:
    """The span of one harness ``TestSession``: its turns, its tool failures."""

    def __init__(self, span: Span) -> None:
        self.span = span
        self.turns = 0

    def end(self, failures: Sequence[str]) -> None:
        s = self.span
        s.set_attribute("autocue.session.turns", self.turns)
        s.set_attribute("autocue.session.tool_failures", len(failures))
        if failures:
            s.set_attribute("autocue.session.failure_messages", [m[:500] for m in failures[:MAX_FAILURES]])
        s.end()


class Telemetry:
    """The active exporter, tracer, the runs bound to session keys and the tool calls awaiting a result."""

    def __init__(self, provider: TracerProvider, endpoint: str, file: IO[str] | None) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("autocue", __version__)
        self.endpoint = endpoint
        self.file = file
        self.lock = threading.Lock()
        self.runs: dict[str, RunSpan] = {}
        self.pending: dict[str, _Call] = {}
        atexit.register(self.close)

    @classmethod
    def start(cls, *, file: str | None, endpoint: str | None, service: str) -> Telemetry:
        attrs = {"service.version": __version__}
        if not os.environ.get("OTEL_SERVICE_NAME"):  # the SDK's variable names the service when set
            attrs["service.name"] = service
        provider = TracerProvider(resource=Resource.create(attrs))
        out: IO[str] | None = None
        exporter: SpanExporter
        if file is not None:
            out = open(file, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())
            exporter = ConsoleSpanExporter(out=out, formatter=_file_line)
            endpoint = ""
        else:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            if endpoint:
                exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces")
            else:
                exporter = OTLPSpanExporter()
                endpoint = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318")
        provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=500))
        return cls(provider, endpoint or "", out)

    # ------------------------------------------------------------------ parents
    def extract(self, headers: Mapping[str, str]) -> Any:
        ctx = _PROPAGATOR.extract(headers)
        return ctx if trace.get_current_span(ctx).get_span_context().is_valid else None

    def bind(self, key: str, run: RunSpan) -> None:
        with self.lock:
            self.runs[key] = run
        run.keys.append(key)

    def unbind(self, key: str, run: RunSpan) -> None:
        with self.lock:
            if self.runs.get(key) is run:
                del self.runs[key]

    def parent(self, headers: Mapping[str, str], session: str) -> Any:
        if "traceparent" in headers:
            ctx = self.extract(headers)
            if ctx is not None:
                return ctx
        run = self.runs.get(session)
        return trace.set_span_in_context(run.span) if run is not None else None

    # ------------------------------------------------------------------ spans
    def start_run(self, name: str, file: str) -> RunSpan:
        span = self.tracer.start_span("invoke_agent", kind=SpanKind.INTERNAL, attributes={
            "gen_ai.operation.name": "invoke_agent", "autocue.scenario.name": name, "autocue.scenario.file": file})
        return RunSpan(self, span)

    def start_session(self, test: str) -> SessionSpan:
        """The span of one harness test session (``test``: the pytest test running it, if any)."""
        attrs: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "autocue"}
        if test:
            attrs["autocue.test"] = test
        return SessionSpan(self.tracer.start_span("invoke_agent autocue", kind=SpanKind.INTERNAL, attributes=attrs))

    def model_request(self, name: str, attributes: dict[str, Any], *, start: int, headers: Mapping[str, str],
                      session: str, error: str | None, calls: Sequence[tuple[str, str]],
                      results: Sequence[ToolResult]) -> None:
        """One answered model request: its span (from ``start``, ns), the tool spans its ``results`` close,
        and its ``calls`` (``(id, name)``) remembered until their result comes."""
        parent = self.parent(headers, session)
        span = self.tracer.start_span(name, parent, SpanKind.SERVER, attributes, start_time=start)
        if error is not None:
            span.set_attribute("error.type", error)
            span.set_status(Status(StatusCode.ERROR, f"HTTP {error}"))
        end = time.time_ns()
        if results:
            with self.lock:
                done = [(r, self.pending.pop(r.call_id, None)) for r in results]
            for r, call in done:
                if call is not None:
                    self._tool_span(r.call_id, r.name or call.name, call, end, r.is_error, answered=True)
        span.end(end)
        if calls:
            ctx = span.get_span_context()
            old: list[tuple[str, _Call]] = []
            with self.lock:
                for cid, cname in calls:
                    self.pending[cid] = _Call(cname, end, ctx, session)
                while len(self.pending) > PENDING_CAP:
                    k = next(iter(self.pending))
                    old.append((k, self.pending.pop(k)))
            for k, c in old:
                self._tool_span(k, c.name, c, end, False, answered=False)

    def waiting(self, call_id: str) -> bool:
        return call_id in self.pending

    def _tool_span(self, cid: str, name: str, call: _Call, end: int, is_error: bool, *, answered: bool) -> None:
        span = self.tracer.start_span(f"execute_tool {name}", trace.set_span_in_context(trace.NonRecordingSpan(
            call.parent)), SpanKind.INTERNAL, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": cid,
            "gen_ai.tool.type": "function", "autocue.tool.answered": answered, "autocue.tool.is_error": is_error,
        }, start_time=call.at)
        if is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, "the tool result is an error"))
        span.end(end)

    def flush(self) -> None:
        self.provider.force_flush()

    def close(self) -> None:
        atexit.unregister(self.close)
        now = time.time_ns()
        with self.lock:
            left, self.pending = list(self.pending.items()), {}
        for k, c in left:
            self._tool_span(k, c.name, c, now, False, answered=False)
        self.provider.shutdown()
        if self.file is not None:
            self.file.close()
