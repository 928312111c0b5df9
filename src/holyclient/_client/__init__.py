"""``Client`` and ``AsyncClient``: configuration, the send path, attempts, responses, streams, pages and
the recorder."""

from __future__ import annotations

from ._client import AsyncClient, Client
from ._twin import async_twin

__all__ = ["AsyncClient", "Client", "async_twin"]
