"""holyclient inside the frameworks built on openai: the client's call path as an HTTP transport.

``client.as_openai()`` gives a genuine ``openai.OpenAI`` / ``AsyncOpenAI`` (what LangChain, LlamaIndex,
pydantic-ai, the Agents SDK, instructor ... accept), and ``client.as_http_client()`` an ``httpx2`` (or
``httpx``) client for the frameworks that take only an HTTP client. Both send every request to the
client's base URL through that holyclient client's own call path: its key and key provider, identity,
limiter, budget, retries, OpenTelemetry span, usage and cost, recorder, and for a Router its target
choice and failover. The transports are public for anything else built on httpx:
:class:`HolyTransport` / :class:`AsyncHolyTransport` (httpx2) and :class:`LegacyHolyTransport` /
:class:`AsyncLegacyHolyTransport` (httpx); what adapts a request or its answer on the way plugs in as a
:class:`CallStep` around each :class:`Call`. :func:`shared_http_client` is one HTTP client for a framework
that gives the same one to openai's sync and async clients (CrewAI). See docs/frameworks/.

This package imports neither openai nor an HTTP library until one is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from ._factories import PLACEHOLDER_KEY, http_client, openai_client, openai_module, shared_http_client

if TYPE_CHECKING:
    from ._adapter import BUDGET_STATUS, Call
    from ._call_steps import CallStep
    from ._legacy import AsyncLegacyHolyTransport, LegacyHolyTransport
    from ._transports import AsyncHolyTransport, HolyTransport

_LAZY = {
    "BUDGET_STATUS": "._adapter",
    "Call": "._adapter",
    "CallStep": "._call_steps",
    "AsyncHolyTransport": "._transports",
    "HolyTransport": "._transports",
    "AsyncLegacyHolyTransport": "._legacy",
    "LegacyHolyTransport": "._legacy",
}

__getattr__ = _lazy_names(__name__, _LAZY, globals())

__all__ = [
    "BUDGET_STATUS",
    "PLACEHOLDER_KEY",
    "AsyncHolyTransport",
    "AsyncLegacyHolyTransport",
    "Call",
    "CallStep",
    "HolyTransport",
    "LegacyHolyTransport",
    "http_client",
    "openai_client",
    "openai_module",
    "shared_http_client",
]
