"""Native OpenTelemetry instrumentation: GenAI spans and metrics from every call, no set-up call.

Active when ``opentelemetry-api`` is importable (``pip install holyclient[otel]``), through the
application's global tracer and meter providers (or the ``tracer_provider=`` / ``meter_provider=``
given to the client). Off with ``Client(instrument=False)`` or
``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=holyclient``. Nothing here imports ``opentelemetry`` until a
client with instrumentation on calls while the API is in use (:func:`wanted`); without the package,
:func:`telemetry` returns None and the send path does nothing more than check for it.

The conventions followed, what is recorded and what never is (prompts unless asked, the key ever) are
described in :mod:`holyclient._otel._semconv` and ``docs/guides/observability.md``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .. import _config
from ._context import STRUCTURED_OUTPUT, TARGET, counts

if TYPE_CHECKING:
    from ._telemetry import Telemetry

__all__ = [
    "STRUCTURED_OUTPUT",
    "TARGET",
    "batch_span",
    "counts",
    "malformed_event",
    "routed",
    "structured_output",
    "telemetry",
    "wanted",
]


def malformed_event(call: Any, count: int) -> None:
    """A stream skipped its ``count``-th event that was not valid JSON (and read on): an event on the
    call's span (a :class:`~._telemetry.Call`), with the count so far."""
    if call.recording:
        call.span.add_event(
            "holyclient.stream.malformed_event", {"holyclient.stream.malformed_events": count}
        )


def wanted(instrument: bool, tracer_provider: Any = None, meter_provider: Any = None) -> bool:
    """Whether a client's instrumentation is made now (:func:`telemetry`), asked by each call until it is:
    instrumentation on, and providers given, or the OpenTelemetry API imported by the application (or a
    library it uses), or a provider named in the environment. Before that no provider can have been set,
    so there is nothing to record: a call neither imports the API (about 0.8 MB) nor asks it for its
    global providers (two environment lookups a call)."""
    return instrument and (
        tracer_provider is not None
        or meter_provider is not None
        or "opentelemetry" in sys.modules
        or _config.otel_provider_named()
    )


def telemetry(instrument: bool, tracer_provider: Any = None, meter_provider: Any = None) -> Telemetry | None:
    """A client's instrumentation, or None: turned off, disabled by the environment, or no API installed."""
    disabled, latest, capture = _config.otel_settings()
    if not instrument or disabled:
        return None
    try:
        from ._telemetry import Telemetry
    except ImportError:  # opentelemetry-api is not installed: zero cost
        return None
    return Telemetry(tracer_provider, meter_provider, latest=latest, capture=capture)


@contextmanager
def routed(target: str) -> Iterator[None]:
    """Calls made inside are sent to the Router target named ``target``."""
    token = TARGET.set(target)
    try:
        yield
    finally:
        TARGET.reset(token)


@contextmanager
def structured_output(method: str) -> Iterator[None]:
    """Calls made inside ask for structured output by ``method``, not as their caller asked (a model
    that cannot take a JSON schema): their spans say so."""
    token = STRUCTURED_OUTPUT.set(method)
    try:
        yield
    finally:
        STRUCTURED_OUTPUT.reset(token)


@contextmanager
def batch_span(client: Any, stats: Any) -> Iterator[None]:
    """A batch run's parent span (``holyclient.batch``), ending with the run's counts from ``stats``."""
    instruments: Telemetry | None = getattr(client, "_telemetry", None)
    if instruments is None:
        yield
        return
    from ._telemetry import batch_run

    with batch_run(instruments, stats):
        yield
