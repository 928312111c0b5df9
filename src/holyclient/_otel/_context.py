"""What a call carries in its context for the spans: the Router target it is sent to, the way structured
output was asked when it is not the caller's, and a batch's tallies as attributes (plain Python, no
OpenTelemetry import)."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

#: The Router target a call in this context is sent to (its span carries ``holyclient.router.target``).
TARGET: ContextVar[str | None] = ContextVar("holyclient_router_target", default=None)

#: How structured output is asked by a call in this context when the model cannot take the JSON schema
#: the caller asked for (``"tool"``, ``"json_object"``): its span carries
#: ``holyclient.structured_output.method``.
STRUCTURED_OUTPUT: ContextVar[str | None] = ContextVar("holyclient_structured_output", default=None)


def context_attributes() -> dict[str, str]:
    """The span attributes this context gives a call: its Router target, how its structured output is asked."""
    attributes = {}
    target, adapted = TARGET.get(), STRUCTURED_OUTPUT.get()
    if target is not None:
        attributes["holyclient.router.target"] = target
    if adapted is not None:
        attributes["holyclient.structured_output.method"] = adapted
    return attributes


def counts(stats: Any) -> Mapping[str, int]:
    """The integer tallies of a batch's stats object, as ``holyclient.batch.*`` attributes."""
    fields = getattr(stats, "__dataclass_fields__", None) or vars(stats)
    return {
        f"holyclient.batch.{name}": value
        for name in fields
        if isinstance(value := getattr(stats, name, None), int) and not isinstance(value, bool)
    }
