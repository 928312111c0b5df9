"""``run_batch``: the batch runner from synchronous code, for batches that fit in memory."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import anyio

from ._feed import RequestLike, as_request
from ._runner import BatchRunner
from ._types import BatchResult

if TYPE_CHECKING:
    from .._client import AsyncClient, Client


def _async_client_for_loop(client: Client | AsyncClient) -> tuple[AsyncClient, bool]:
    """The ``AsyncClient`` to run a sync batch with, and whether it is ours to close.

    A connection pool belongs to the event loop it first ran in, and each :func:`run_batch` call runs
    a new loop; so a client with its own pool is run through a twin with all the same settings (key or
    key provider, organization, project, default headers and query, limiter, budget) and usage
    tracker, on a fresh pool. An ``AsyncClient`` given its ``http_client`` by the caller is used as is.
    """
    from .._client import AsyncClient, async_twin
    from .._send import owns_pool

    if isinstance(client, AsyncClient) and not owns_pool(client):
        return client, False
    if not owns_pool(client):
        raise TypeError(
            "run_batch() cannot reuse a Client's own http_client (it is synchronous): pass an AsyncClient "
            "built with an httpx2.AsyncClient / httpx.AsyncClient instead"
        )
    return async_twin(client), True


def run_batch(
    client: Client | AsyncClient,
    requests: Iterable[RequestLike],
    **options: Any,
) -> list[BatchResult]:
    """Run a batch from synchronous code and return the results in input order.

    All results are kept in memory: for large batches, use :class:`BatchRunner` with ``on_result``
    (or ``holyclient batch``), which keeps memory proportional to the concurrency.

    Args:
        client: a ``Client`` or ``AsyncClient``; the batch runs on a fresh async connection pool with
            its settings (unless it is an ``AsyncClient`` with your own ``http_client``), and its usage
            tracker records the batch's tokens.
        requests: :class:`BatchRequest` objects, Batch API input lines or bare request bodies.
        options: :class:`BatchRunner` options (``concurrency``, ``rpm``, ``tpm``, ``max_retries`` ...).
    """
    items = [as_request(item, position) for position, item in enumerate(requests, 1)]
    order = {request.custom_id: index for index, request in enumerate(items)}
    if len(order) != len(items):
        raise ValueError("custom_id values must be unique within a batch")
    results: list[BatchResult | None] = [None] * len(items)

    def keep(result: BatchResult) -> None:
        results[order[result.custom_id]] = result

    async def main() -> None:
        async_client, owned = _async_client_for_loop(client)
        try:
            await BatchRunner(async_client, **options).run(items, keep)
        finally:
            if owned:
                await async_client.close()

    anyio.run(main)
    return [result for result in results if result is not None]
