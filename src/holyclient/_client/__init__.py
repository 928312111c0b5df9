"""``Client`` and ``AsyncClient``: configuration, the send path, attempts, responses, streams, pages and
the recorder."""

from __future__ import annotations

from ._client import AsyncClient, Client

__all__ = ["AsyncClient", "Client"]
