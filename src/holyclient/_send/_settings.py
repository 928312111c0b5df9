"""A client's settings, declared once (:class:`ClientSettings`), and :data:`NO_KEY`, the key of a client
that sends nothing itself."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict, cast

if TYPE_CHECKING:
    from ..pricing import BudgetPolicy, UsageTracker
    from ..ratelimit import Limiter

__all__ = ["NO_KEY", "ClientSettings", "settings_of"]


class ClientSettings(TypedDict):
    """Every setting of a client, declared once. ``Client`` and ``AsyncClient`` name each one in their
    signatures (explicit, with the defaults users see: for IDEs, the API reference and the parity tests)
    and hand them all to :class:`BaseClient` through :func:`settings_of`; ``with_options`` changes those
    of :data:`_COPY_CHANGES`. See ``Client``'s docstring for what each one means."""

    api_key: Any
    organization: str | None
    project: str | None
    base_url: Any
    timeout: Any
    first_event_timeout: Any
    stream_idle_timeout: Any
    max_retries: int
    default_headers: Mapping[str, str] | None
    default_query: Mapping[str, object] | None
    http_client: Any
    allow_insecure_http: bool
    max_retry_after: float
    budget_usd: float | None
    budget_policy: BudgetPolicy
    usage: UsageTracker | None
    record_to: str | os.PathLike[str] | None
    record_rate: float
    calibration: Any
    sleep: Any
    limiter: Limiter | None
    instrument: bool
    tracer_provider: Any
    meter_provider: Any


def settings_of(arguments: Mapping[str, Any]) -> ClientSettings:
    """The settings among a constructor's arguments (its ``locals()``)."""
    return cast("ClientSettings", {name: arguments[name] for name in ClientSettings.__annotations__})


class _NoKey:
    """The type of :data:`NO_KEY`."""

    def __repr__(self) -> str:
        return "NO_KEY"


#: ``api_key=NO_KEY`` builds a client that sends nothing itself: no key, no connection pool of its own,
#: no transport-security check (there is no key to protect). A Router is one: each target's own client
#: holds that target's key and sends; the router keeps the settings, budget, usage and recorder of a client.
NO_KEY: Any = _NoKey()
