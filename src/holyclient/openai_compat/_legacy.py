"""holyclient's transports for the legacy ``httpx`` (openai 2.x's HTTP library, and frameworks that build
httpx clients): :class:`LegacyHolyTransport` (sync) and :class:`AsyncLegacyHolyTransport`, the same
shells as :mod:`._transports` on httpx's base classes."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from ._shells import AsyncEvents, AsyncShell, SyncEvents, SyncShell

__all__ = ["AsyncLegacyHolyTransport", "LegacyHolyTransport"]


class _Events(SyncEvents, httpx.SyncByteStream):
    _flavor: ClassVar[Any] = httpx


class _AsyncEvents(AsyncEvents, httpx.AsyncByteStream):
    _flavor: ClassVar[Any] = httpx


class LegacyHolyTransport(SyncShell, httpx.BaseTransport):
    """:class:`~holyclient.openai_compat.HolyTransport` for an ``httpx.Client``: the same arguments and
    behaviour, on the legacy httpx's classes."""

    _flavor: ClassVar[Any] = httpx
    _events: ClassVar[type[SyncEvents]] = _Events


class AsyncLegacyHolyTransport(AsyncShell, httpx.AsyncBaseTransport):
    """:class:`~holyclient.openai_compat.AsyncHolyTransport` for an ``httpx.AsyncClient``."""

    _flavor: ClassVar[Any] = httpx
    _events: ClassVar[type[AsyncEvents]] = _AsyncEvents
