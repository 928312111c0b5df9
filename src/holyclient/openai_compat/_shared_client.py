"""One HTTP client for a framework that hands the same one to openai's sync *and* async clients.

CrewAI (1.15) builds an ``openai.OpenAI`` and an ``openai.AsyncOpenAI`` from one ``client_params``, so
the ``http_client`` given there must be accepted by both: openai checks that it is an ``httpx.Client``
for the one and an ``httpx.AsyncClient`` for the other. :func:`shared_http_client` makes a client that
is both (:func:`~._factories.shared_http_client` makes it), over holyclient's two transports: openai marks every request with whether its client is async
(``X-Stainless-Async: false`` from ``OpenAI``, ``async:asyncio`` from ``AsyncOpenAI``), and each request
is sent through the matching holyclient client -- the sync one from the sync client, awaited through
the async one from the async client.
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["shared_class"]

#: The header openai sends on every request, saying whether its client is async.
ASYNC_HEADER = "x-stainless-async"


@cache
def shared_class(flavor: Any) -> type[Any]:
    """The class for one HTTP library (``httpx`` or ``httpx2``): a ``Client`` and an ``AsyncClient``."""

    class SharedHttpClient(flavor.Client, flavor.AsyncClient):  # type: ignore[misc]
        """Sends each request through the sync or the async holyclient client, as its sender is."""

        def __init__(self, sync_transport: Any, async_transport: Any, timeout: Any) -> None:
            flavor.Client.__init__(self, transport=sync_transport, timeout=timeout)
            self._asynchronous = flavor.AsyncClient(transport=async_transport, timeout=timeout)

        def send(self, request: Any, **options: Any) -> Any:
            if request.headers.get(ASYNC_HEADER, "false") == "false":
                return flavor.Client.send(self, request, **options)
            return self._asynchronous.send(request, **options)  # a coroutine: the async client awaits it

        async def aclose(self) -> None:
            await self._asynchronous.aclose()

        async def __aenter__(self) -> SharedHttpClient:
            return self

        async def __aexit__(self, *exc: object) -> None:
            await self.aclose()

    return SharedHttpClient
