"""What a call carries in its context for the spans: the Router target it is sent to, and a batch's
tallies as attributes (plain Python, no OpenTelemetry import)."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

#: The Router target a call in this context is sent to (its span carries ``holyclient.router.target``).
TARGET: ContextVar[str | None] = ContextVar("holyclient_router_target", default=None)


def counts(stats: Any) -> Mapping[str, int]:
    """The integer tallies of a batch's stats object, as ``holyclient.batch.*`` attributes."""
    fields = getattr(stats, "__dataclass_fields__", None) or vars(stats)
    return {
        f"holyclient.batch.{name}": value
        for name in fields
        if isinstance(value := getattr(stats, name, None), int) and not isinstance(value, bool)
    }
