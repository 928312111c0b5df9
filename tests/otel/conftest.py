"""OpenTelemetry fixtures: SDK providers with in-memory exporters, passed to each client explicitly.

No test sets a global provider (the one that does patches it for its own duration), so nothing leaks
into other tests.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from holyclient import AsyncClient, Client
from holyclient.testing import LocalServer

from .receiver import Receiver

KEY = "sk-otel-SECRET-KEY-7f3a9c2e51d4"


class Captured:
    """An SDK tracer and meter provider whose spans and metrics stay in memory."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def span(self) -> ReadableSpan:
        (span,) = self.spans()
        return span

    def points(self, name: str) -> list[Any]:
        """The data points of the metric ``name`` (empty when it was never recorded)."""
        data = self.reader.get_metrics_data()
        found: list[Any] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found

    def close(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


@pytest.fixture(scope="session")
def otel_server() -> Iterator[LocalServer]:
    with LocalServer() as server:
        yield server


@pytest.fixture
def server(otel_server: LocalServer) -> Iterator[LocalServer]:
    otel_server.reset()
    yield otel_server
    otel_server.reset()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """An OTLP/HTTP receiver on 127.0.0.1, serving for the test's duration."""
    found = Receiver()
    thread = threading.Thread(target=found.serve_forever, daemon=True)
    thread.start()
    yield found
    found.shutdown()
    found.server_close()
    thread.join()


@pytest.fixture
def captured() -> Iterator[Captured]:
    found = Captured()
    yield found
    found.close()


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make(server: LocalServer, captured: Captured) -> AsyncIterator[Callable[..., Any]]:
    """``make(mode, **options)``: a client on the local server reporting to ``captured`` (closed after)."""
    clients: list[Client | AsyncClient] = []

    async def no_wait(seconds: float) -> None:
        return None

    def build(mode: str, **options: Any) -> Client | AsyncClient:
        options.setdefault("base_url", server.base_url)
        options.setdefault("api_key", KEY)
        options.setdefault("tracer_provider", captured.tracer_provider)
        options.setdefault("meter_provider", captured.meter_provider)
        client: Client | AsyncClient
        if mode == "sync":
            client = Client(sleep=lambda seconds: None, **options)
        else:
            client = AsyncClient(sleep=no_wait, **options)
        clients.append(client)
        return client

    yield build
    for client in clients:
        await resolve(client.close())


async def resolve(value: Any) -> Any:
    """The value of a sync or async client's call."""
    return await value if inspect.isawaitable(value) else value


async def drain(stream: Any) -> list[Any]:
    """Every item of a sync or async stream."""
    if hasattr(stream, "__aiter__"):
        return [item async for item in stream]
    return list(stream)
