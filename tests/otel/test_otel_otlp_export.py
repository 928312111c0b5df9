"""Through the real OTLP/HTTP exporters into a receiver on 127.0.0.1 that decodes the protobuf it gets:
what a collector (Jaeger, Tempo, Logfire...) would receive from one call."""

from __future__ import annotations

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from holyclient import Client
from holyclient.testing import LocalServer

from .conftest import KEY
from .receiver import Receiver
from .receiver import attributes as _attributes


def test_a_call_arrives_at_an_otlp_receiver_as_a_genai_span_and_metrics(
    server: LocalServer, receiver: Receiver
) -> None:
    endpoint = receiver.endpoint
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

    names = receiver.metrics()
    duration = names["gen_ai.client.operation.duration"]
    assert list(duration.histogram.data_points[0].explicit_bounds)[:3] == [0.01, 0.02, 0.04]
    tokens = names["gen_ai.client.token.usage"]
    assert {_attributes(p.attributes)["gen_ai.token.type"] for p in tokens.histogram.data_points} == {
        "input",
        "output",
    }
