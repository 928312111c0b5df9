"""Through the real OTLP/HTTP exporters into a receiver on 127.0.0.1 that decodes the protobuf it gets:
what a collector (Jaeger, Tempo, Logfire...) would receive from one call."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from holyclient import Client
from holyclient.testing import LocalServer

from .conftest import KEY


class Receiver(ThreadingHTTPServer):
    """Keeps the raw bodies POSTed to /v1/traces and /v1/metrics."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: dict[str, list[bytes]] = {"/v1/traces": [], "/v1/metrics": []}


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


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    thread = threading.Thread(target=found.serve_forever, daemon=True)
    thread.start()
    yield found
    found.shutdown()
    found.server_close()
    thread.join()


def _attributes(key_values: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for kv in key_values:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        values[kv.key] = list(v.string_value for v in value.values) if kind == "array_value" else value
    return values


def test_a_call_arrives_at_an_otlp_receiver_as_a_genai_span_and_metrics(
    server: LocalServer, receiver: Receiver
) -> None:
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"))
    )
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics"), export_interval_millis=3_600_000
    )
    meter_provider = MeterProvider(metric_readers=[reader])
    try:
        with Client(
            base_url=server.base_url,
            api_key=KEY,
            tracer_provider=tracer_provider,
            meter_provider=meter_provider,
        ) as client:
            answer = client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]
            )
        meter_provider.force_flush()
    finally:
        tracer_provider.shutdown()
        meter_provider.shutdown()

    raw = b"".join(receiver.bodies["/v1/traces"] + receiver.bodies["/v1/metrics"])
    assert KEY.encode() not in raw
    (body,) = receiver.bodies["/v1/traces"]
    traces = ExportTraceServiceRequest.FromString(body)
    (scope_spans,) = traces.resource_spans[0].scope_spans
    assert scope_spans.scope.name == "holyclient"
    (span,) = scope_spans.spans
    assert span.name == "chat gpt-4.1"
    assert span.kind == span.SPAN_KIND_CLIENT
    attributes = _attributes(span.attributes)
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.response.id"] == answer.id
    assert attributes["gen_ai.usage.output_tokens"] == answer.usage.completion_tokens
    assert attributes["gen_ai.response.finish_reasons"] == ["stop"]

    names: dict[str, Any] = {}
    for body in receiver.bodies["/v1/metrics"]:
        for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
            for scope in resource.scope_metrics:
                names.update({metric.name: metric for metric in scope.metrics})
    duration = names["gen_ai.client.operation.duration"]
    assert list(duration.histogram.data_points[0].explicit_bounds)[:3] == [0.01, 0.02, 0.04]
    tokens = names["gen_ai.client.token.usage"]
    assert {_attributes(p.attributes)["gen_ai.token.type"] for p in tokens.histogram.data_points} == {
        "input",
        "output",
    }
