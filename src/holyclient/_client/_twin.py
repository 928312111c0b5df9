"""``async_twin``: an :class:`AsyncClient` with all of a client's settings, for a new event loop."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._send import share_usage

if TYPE_CHECKING:
    from ._client import AsyncClient, Client


def async_twin(client: Client | AsyncClient) -> AsyncClient:
    """An ``AsyncClient`` with all of ``client``'s settings (key or key provider, organization, project,
    default headers and query, retries, limiter, budget) charging its usage tracker, on a fresh pool.

    A connection pool belongs to the event loop it first ran in: ``run_batch`` runs each batch in a new
    loop, so it runs a client with its own pool through such a twin (which the caller closes).
    """
    from ._client import AsyncClient

    provider = client._api_key_provider
    api_key: Any = client.api_key
    if provider is not None:  # a Client's provider is a plain function: called before each attempt too

        async def api_key() -> str:
            key: str = provider() if not isinstance(client, AsyncClient) else await provider()
            return key

    twin = AsyncClient(
        api_key=api_key,
        organization=client.organization,
        project=client.project,
        base_url=client.base_url,
        timeout=client.timeout,
        max_retries=client.max_retries,
        default_headers=client.default_headers,
        default_query=client.default_query,
        allow_insecure_http=client._allow_insecure_http,
        max_retry_after=client._policy.max_retry_after,
        budget_usd=client._budget_usd,
        limiter=client.limiter,
    )
    share_usage(twin, client.usage, client._budget_usd)
    return twin
