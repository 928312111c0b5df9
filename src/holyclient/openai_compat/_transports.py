"""holyclient's transports for httpx2 (openai 3.x's HTTP library): :class:`HolyTransport` (sync) and
:class:`AsyncHolyTransport`. Give one to any ``httpx2.Client`` / ``AsyncClient``; every request to the
client's base URL then runs through that holyclient client's call path."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx2

from ._shells import AsyncEvents, AsyncShell, SyncEvents, SyncShell

__all__ = ["AsyncHolyTransport", "HolyTransport"]


class _Events(SyncEvents, httpx2.SyncByteStream):
    _flavor: ClassVar[Any] = httpx2


class _AsyncEvents(AsyncEvents, httpx2.AsyncByteStream):
    _flavor: ClassVar[Any] = httpx2


class HolyTransport(SyncShell, httpx2.BaseTransport):
    r"""An ``httpx2`` transport that sends each request through a :class:`~holyclient.Client`'s call path:
    its key, budget, limiter, retries, span, usage and recorder (a Router's target choice and failover).

    Args:
        client: the holyclient ``Client`` (or ``Router``); it is not closed with the transport.
        retries: ``"auto"`` (default): a request from an openai client (which numbers its attempts in
            ``x-stainless-retry-count``) is sent once, and that client retries it; any other request
            gets the client's retry policy. ``"holyclient"``: the client's retry policy for every request,
            and its final answer tells openai not to retry (what ``as_openai()`` uses).
        steps: the :class:`~holyclient.openai_compat.CallStep`\s around each call (default: the
            package's own, :func:`~holyclient.openai_compat._call_steps.default_steps`).

    Raises:
        TypeError: ``client`` is an async client (use :class:`AsyncHolyTransport`).
    """

    _flavor: ClassVar[Any] = httpx2
    _events: ClassVar[type[SyncEvents]] = _Events


class AsyncHolyTransport(AsyncShell, httpx2.AsyncBaseTransport):
    """Async twin of :class:`HolyTransport`, over an :class:`~holyclient.AsyncClient` (or ``AsyncRouter``)."""

    _flavor: ClassVar[Any] = httpx2
    _events: ClassVar[type[AsyncEvents]] = _AsyncEvents
