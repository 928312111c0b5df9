"""A router's :class:`~holyclient._steps.Sender`: one attempt, handed to a target's own send pipeline.

Used where a caller sends single attempts and handles the status itself (binary downloads, the batch
runner): the attempt walks the failover order, failing over only when no answer came, and goes through
the chosen target's :class:`~holyclient._pipeline.Pipeline` -- that target's key, identity, budget
(``Target(budget_usd=...)``, charged to the router's total too), limiter and usage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._send import sender_of
from ._core import mark

if TYPE_CHECKING:
    from .._core import RequestOptions
    from .._send import Exchange, SendStep


class RoutedSender:
    """Sends one attempt of a router's call through a target's pipeline (see the module docstring)."""

    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client

    def send(self, options: RequestOptions, *, limited: bool = True) -> Exchange:
        """One attempt on the first target that answers, whatever the status.

        Raises:
            APIConnectionError: no target answered (the last target's error); ``BudgetExceededError``
                when the budgets leave nothing to send with.
        """
        router = self.client
        routing = router._core.start(options)
        while True:
            target, prepared = routing.next()
            try:
                exchange: Exchange = sender_of(router._clients[target.name]).send(prepared, limited=limited)
            except BaseException as exc:
                routing.failed(exc)
                continue
            routing.answered(exchange.response.status_code)
            mark(exchange.response, target.name)
            return exchange

    async def asend(
        self, options: RequestOptions, *, steps: tuple[SendStep, ...] = (), limited: bool = True
    ) -> Exchange:
        """Async twin of :meth:`send`; ``steps`` run around each target's wire."""
        router = self.client
        routing = router._core.start(options)
        while True:
            target, prepared = routing.next()
            try:
                exchange: Exchange = await sender_of(router._clients[target.name]).asend(
                    prepared, steps=steps, limited=limited
                )
            except BaseException as exc:
                routing.failed(exc)
                continue
            routing.answered(exchange.response.status_code)
            mark(exchange.response, target.name)
            return exchange
