"""An OTLP/HTTP receiver on 127.0.0.1 that keeps the protobuf bodies it is sent, and their decoding:
what a collector (Jaeger, Tempo, Logfire...) would receive."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


class Receiver(ThreadingHTTPServer):
    """Keeps the raw bodies POSTed to /v1/traces, /v1/metrics (and /v1/logs, when sent)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: dict[str, list[bytes]] = {"/v1/traces": [], "/v1/metrics": []}

    @property
    def endpoint(self) -> str:
        """The base URL an exporter's ``OTEL_EXPORTER_OTLP_ENDPOINT`` points at."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def spans(self) -> list[tuple[dict[str, Any], Any]]:
        """Every span received, with the attributes of the resource that sent it."""
        found = []
        for body in self.bodies["/v1/traces"]:
            for resource_spans in ExportTraceServiceRequest.FromString(body).resource_spans:
                resource = attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    found += [(resource, span) for span in scope_spans.spans]
        return found

    def metrics(self) -> dict[str, Any]:
        """The metrics received, by name (the last export of each)."""
        names: dict[str, Any] = {}
        for body in self.bodies["/v1/metrics"]:
            for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                for scope in resource.scope_metrics:
                    names.update({metric.name: metric for metric in scope.metrics})
        return names


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.bodies.setdefault(self.path, []).append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def attributes(key_values: Any) -> dict[str, Any]:
    """OTLP ``KeyValue`` attributes as a dict (arrays of strings as lists)."""
    values: dict[str, Any] = {}
    for kv in key_values:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        values[kv.key] = list(v.string_value for v in value.values) if kind == "array_value" else value
    return values
