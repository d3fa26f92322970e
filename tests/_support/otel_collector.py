"""A real OTLP/HTTP trace receiver on loopback: ``POST /v1/traces`` with a protobuf
``ExportTraceServiceRequest`` (decoded by ``opentelemetry-proto``), the spans kept as plain values."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def _value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


@dataclass
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    status: int
    attributes: dict[str, Any]
    service: str
    start: int
    end: int


@dataclass
class Collector:
    url: str
    spans: list[Span] = field(default_factory=list)
    requests: int = 0

    def named(self, prefix: str) -> list[Span]:
        return [s for s in self.spans if s.name.startswith(prefix)]

    def by_id(self) -> dict[str, Span]:
        return {s.span_id: s for s in self.spans}


class _Handler(BaseHTTPRequestHandler):
    collector: Collector
    lock: threading.Lock

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path != "/v1/traces" or self.headers.get("content-type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        req = ExportTraceServiceRequest()
        req.ParseFromString(body)
        got: list[Span] = []
        for rs in req.resource_spans:
            res = {a.key: _value(a.value) for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for s in ss.spans:
                    got.append(Span(s.name, s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(), s.kind,
                                    s.status.code, {a.key: _value(a.value) for a in s.attributes},
                                    str(res.get("service.name")), s.start_time_unix_nano, s.end_time_unix_nano))
        with self.lock:
            self.collector.spans.extend(got)
            self.collector.requests += 1
        out = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Receiver:
    def __init__(self) -> None:
        handler = type("Handler", (_Handler,), {"lock": threading.Lock()})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.collector = Collector(f"http://127.0.0.1:{self.server.server_address[1]}")
        handler.collector = self.collector
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Collector:
        self.thread.start()
        return self.collector

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
