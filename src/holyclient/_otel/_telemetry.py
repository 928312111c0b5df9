"""The spans and metrics of calls: imported only once ``opentelemetry`` has imported (see the face).

One :class:`Call` per logical call: it opens the span before the first attempt (retries happen inside
it), is the current span while the call runs (so a Router can say which target answered, and HTTP
instrumentation nests under it), and ends it with the answer, the error, or -- for a stream -- when
the stream is exhausted, closed or dropped (the stream's :class:`~holyclient.pricing._stream_usage.StreamMeter`
tells it how, with the usage of the final chunk).

When the tracer is the API's no-op (no SDK configured), the span does not record: nothing is computed
for it beyond the few attributes the metrics need.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

try:  # the API's stand-in until a meter provider is set (private: without it, never skip)
    from opentelemetry.metrics._internal import _ProxyMeterProvider as _PROXY_METER_PROVIDER
except ImportError:  # pragma: no cover - another API version
    _PROXY_METER_PROVIDER = None  # type: ignore[assignment,misc]

from .._version import __version__
from . import _semconv
from ._context import context_attributes

if TYPE_CHECKING:
    from .._core import RequestOptions

T = TypeVar("T")

__all__ = ["Call", "Telemetry", "batch_run"]

SCHEMA_URL = "https://opentelemetry.io/schemas/1.36.0"
LATEST_SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"

#: The bucket boundaries the conventions advise for the two histograms.
DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
TOKEN_BUCKETS = [4**i for i in range(14)]

#: Operations whose messages the conventions record (with content capture on).
_CONTENT_OPERATIONS = frozenset({"chat", "text_completion"})

#: Responses API stream events that end a response (their ``response.status`` is the finish reason).
_RESPONSE_END = frozenset({"response.completed", "response.incomplete", "response.failed"})


class Telemetry:
    """A client's tracer and instruments, from the given providers or the application's global ones."""

    def __init__(self, tracer_provider: Any, meter_provider: Any, *, latest: bool, capture: bool) -> None:
        schema = LATEST_SCHEMA_URL if latest else SCHEMA_URL
        self.tracer = trace.get_tracer("holyclient", __version__, tracer_provider, schema_url=schema)
        meter = metrics.get_meter("holyclient", __version__, meter_provider, schema_url=schema)
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.first_chunk = meter.create_histogram(
            "gen_ai.client.operation.time_to_first_chunk",
            unit="s",
            description="Time to receive the first chunk of a streamed answer.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
        # The global providers are looked up per call while unset: an application may set them later.
        self._global = tracer_provider is None and meter_provider is None
        self.provider_key = "gen_ai.provider.name" if latest else "gen_ai.system"
        self.latest = latest
        self.capture = capture
        self._servers: dict[str, tuple[str, int]] = {}

    def server(self, base_url: str) -> tuple[str, int]:
        """``(server.address, server.port)`` of a base URL (cached: copies may change it)."""
        found = self._servers.get(base_url)
        if found is None:
            parts = urlsplit(base_url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
            found = self._servers[base_url] = (parts.hostname or "", port)
        return found

    def start(self, base_url: str, options: RequestOptions, ready: Callable[[Any], None]) -> Call | None:
        """The call's span, started; None for a path that is no GenAI operation (files, models...).
        ``ready(options)`` first loads what the attempts load on first use: the span times the wire."""
        entry = _semconv.OPERATIONS.get(options.path)
        if entry is None or (self._global and _unconfigured()):
            return None
        ready(options)
        body = options.body if options.body is not None else _semconv.form_body(options.content)
        return Call(self, base_url, options.path, body, *entry)


class Call:
    """One logical call's span and metrics (see the module docstring)."""

    __slots__ = (
        "_attempts",
        "_metric",
        "_pieces",
        "_started",
        "_token",
        "recording",
        "span",
        "telemetry",
    )

    def __init__(
        self,
        telemetry: Telemetry,
        base_url: str,
        path: str,
        body: Mapping[str, Any],
        operation: str,
        output: str | None,
    ) -> None:
        self.telemetry = telemetry
        address, port = telemetry.server(base_url)
        model = body.get("model")
        metric: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            telemetry.provider_key: _semconv.PROVIDER,
            "server.address": address,
            "server.port": port,
        }
        if isinstance(model, str):
            metric["gen_ai.request.model"] = model
        self._metric = metric
        name = f"{operation} {model}" if isinstance(model, str) else operation
        self.span = span = telemetry.tracer.start_span(name, kind=SpanKind.CLIENT, attributes=metric)
        self._started = time.perf_counter()
        self._token: object = None
        self._attempts: Callable[[], int] | None = None
        self._pieces: list[str] | None = None
        self.recording = span.is_recording()
        if self.recording:
            api = _semconv.OPENAI_API_TYPES.get(path)
            span.set_attributes(_semconv.request_attributes(body, output, latest=telemetry.latest, api=api))
            span.set_attributes(context_attributes())
            if body.get("stream") is True:
                span.set_attribute("gen_ai.request.stream", True)
            if telemetry.capture and operation in _CONTENT_OPERATIONS:
                self._pieces = []
                self._content("gen_ai.input.messages", _semconv.content_messages(body))

    # --- lifecycle ----------------------------------------------------------------------------------

    def counting(self, attempts: Callable[[], int]) -> None:
        """Where the number of attempts made is read when the call ends."""
        self._attempts = attempts

    def enter(self) -> None:
        """Make this the current span while the call's attempts run (HTTP instrumentation nests under it)."""
        if self.recording:
            self._token = otel_context.attach(trace.set_span_in_context(self.span))

    def leave(self) -> None:
        token, self._token = self._token, None
        if token is not None:
            otel_context.detach(token)  # type: ignore[arg-type]

    def run(self, fn: Callable[[], T], unwrap: Callable[[Any], Any]) -> T:
        """``fn()`` (the call with its retries) inside the span, which ends with its result or error."""
        self.enter()
        try:
            result = fn()
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            self.leave()
        self.answered(unwrap(result))
        return result

    async def arun(self, fn: Callable[[], Awaitable[T]], unwrap: Callable[[Any], Any]) -> T:
        """Async twin of :meth:`run`."""
        self.enter()
        try:
            result = await fn()
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            self.leave()
        self.answered(unwrap(result))
        return result

    def open(self, fn: Callable[[], T]) -> T:
        """``fn()`` opening a stream inside the span; the span goes on until the stream ends."""
        self.enter()
        try:
            return fn()
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            self.leave()

    async def aopen(self, fn: Callable[[], Awaitable[T]]) -> T:
        """Async twin of :meth:`open`."""
        self.enter()
        try:
            return await fn()
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            self.leave()

    # --- endings ------------------------------------------------------------------------------------

    def answered(self, result: Any) -> None:
        """The call succeeded with ``result`` (the parsed model)."""
        span = self.span
        usage = getattr(result, "usage", None)
        if self.recording:
            response = _semconv.response_attributes(result, latest=self.telemetry.latest)
            self._finish(response, usage, "reported")
            if self._pieces is not None:
                self._content("gen_ai.output.messages", _semconv.output_messages(result))
        else:  # no span to fill: only what the metrics need
            model = getattr(result, "model", None)
            self._finish(
                {"gen_ai.response.model": model} if isinstance(model, str) else {}, usage, "reported"
            )
        span.end()

    def failed(self, exc: BaseException) -> None:
        """The call failed with ``exc``: ``error.type`` (the class name: never the message) and ERROR."""
        from .._exceptions import APIStatusError, BudgetExceededError

        error = "StreamInterrupted" if isinstance(exc, _StreamInterrupted) else type(exc).__qualname__
        span = self.span
        if self.recording:
            span.set_attribute("error.type", error)
            if isinstance(exc, APIStatusError):
                span.set_attribute("http.response.status_code", exc.status_code)
            if isinstance(exc, BudgetExceededError):
                span.set_attribute("holyclient.budget.refused", True)
            self._set_attempts()
            span.set_status(Status(StatusCode.ERROR, error))
        self.telemetry.duration.record(
            time.perf_counter() - self._started, {**self._metric, "error.type": error}
        )
        span.end()

    def _finish(self, response: dict[str, Any], usage: Any, method: str) -> None:
        """Attributes and metrics of a successful ending (the span is ended by the caller)."""
        telemetry, metric = self.telemetry, self._metric
        model = response.get("gen_ai.response.model")
        if model is not None:
            metric = {**metric, "gen_ai.response.model": model}
        telemetry.duration.record(time.perf_counter() - self._started, metric)
        if usage is not None:
            prompt, completion = _semconv.token_counts(usage)
            if prompt is not None:
                telemetry.tokens.record(prompt, {**metric, "gen_ai.token.type": "input"})
            if completion is not None:
                telemetry.tokens.record(completion, {**metric, "gen_ai.token.type": "output"})
        if not self.recording:
            return
        span = self.span
        span.set_attributes(response)
        if usage is not None:
            span.set_attributes(_semconv.usage_attributes(usage))
        self._set_attempts()
        if usage is not None:
            span.set_attribute("holyclient.usage.count_method", method)
            cost = _cost(model or self._metric.get("gen_ai.request.model"), usage)
            if cost is not None:
                span.set_attribute("holyclient.cost_usd", cost)

    def _set_attempts(self) -> None:
        if self._attempts is not None:
            self.span.set_attribute("holyclient.attempts", self._attempts())

    def _content(self, name: str, messages: list[dict[str, Any]]) -> None:
        """Record prompts or completions (only with content capture on), as the convention in use says."""
        if self.telemetry.latest:
            self.span.set_attribute(name, _semconv.dumps(messages))
        else:  # v1.36.0: one event per message
            event = "gen_ai.choice" if name == "gen_ai.output.messages" else None
            for message in messages:
                text = "".join(part.get("content", "") for part in message["parts"])
                kind = event or f"gen_ai.{message['role']}.message"
                self.span.add_event(kind, {"gen_ai.system": _semconv.PROVIDER, "content": text})

    # --- streams (the StreamMeter's watch) ----------------------------------------------------------

    def first_chunk(self) -> None:
        """The stream's first event arrived (its attempt is over): time to first chunk."""
        elapsed = time.perf_counter() - self._started
        self.telemetry.first_chunk.record(elapsed, self._metric)
        if self.recording:
            self.span.set_attribute("gen_ai.response.time_to_first_chunk", elapsed)

    def chunk(self, item: Any) -> None:
        """A parsed chunk or event: its id, model and finish reasons (and text, when captured)."""
        if not self.recording:
            return
        response = getattr(item, "response", None)
        source = response if response is not None else item
        response_id = getattr(source, "id", None)
        if isinstance(response_id, str):
            self.span.set_attribute("gen_ai.response.id", response_id)
        model = getattr(source, "model", None)
        if isinstance(model, str):
            self._metric = {**self._metric, "gen_ai.response.model": model}
            self.span.set_attribute("gen_ai.response.model", model)
        choices = getattr(item, "choices", None)
        if choices:
            for choice in choices:
                reason = getattr(choice, "finish_reason", None)
                if isinstance(reason, str):
                    self.span.set_attribute("gen_ai.response.finish_reasons", [reason])
                if self._pieces is not None:
                    text = getattr(getattr(choice, "delta", None), "content", None) or getattr(
                        choice, "text", None
                    )
                    if isinstance(text, str):
                        self._pieces.append(text)
        elif self._pieces is not None and isinstance(getattr(item, "delta", None), str):
            self._pieces.append(item.delta)
        status = getattr(response, "status", None) if response is not None else None
        if isinstance(status, str) and getattr(item, "type", "") in _RESPONSE_END:
            self.span.set_attribute("gen_ai.response.finish_reasons", [status])

    def ended(self, outcome: str, usage: Any, approximate: bool, error: BaseException | None = None) -> None:
        """The stream was settled: read to the end, closed early, or ended by ``error`` (an error event,
        a dropped connection: outcome unknown)."""
        span = self.span
        if self.recording:
            span.set_attribute("holyclient.stream.outcome", outcome)
            if self._pieces is not None:
                self._content("gen_ai.output.messages", _semconv.output_messages(None, "".join(self._pieces)))
        if error is not None or outcome == "unknown":
            self.failed(error if error is not None else _StreamInterrupted())
            return
        model = self._metric.get("gen_ai.response.model")
        self._finish(
            {"gen_ai.response.model": model} if model is not None else {},
            usage,
            "local" if approximate else "reported",
        )
        span.end()


class _StreamInterrupted(Exception):
    """Stands for the error of a stream that ended with its outcome unknown and no error to show."""


def _unconfigured() -> bool:
    """Whether the application has set neither a tracer nor a meter provider: the API's no-op ones,
    where a span and its metrics would cost CPU and record nothing."""
    return (
        _PROXY_METER_PROVIDER is not None
        and isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
        and isinstance(metrics.get_meter_provider(), _PROXY_METER_PROVIDER)
    )


def _cost(model: Any, usage: Any) -> float | None:
    """The call's cost in USD from the price table; None for a model without a price."""
    if not isinstance(model, str):
        return None
    from ..pricing import cost_from_usage

    try:
        return float(cost_from_usage(model, usage).cost_usd)
    except Exception:  # an unknown model, an odd usage shape: no cost, never a failed call
        return None


@contextmanager
def batch_run(telemetry: Telemetry, stats: Any) -> Iterator[None]:
    """The parent span of a batch run (``holyclient.batch``): its counts are set when it ends."""
    from ._context import counts

    with telemetry.tracer.start_as_current_span("holyclient.batch", kind=SpanKind.INTERNAL) as span:
        try:
            yield
        finally:
            if span.is_recording():
                span.set_attributes(counts(stats))
