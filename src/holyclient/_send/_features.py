"""What a feature needs from a client, by name (re-exported by :mod:`holyclient._send`).

The router, the batch runner, ``compare`` and ``doctor`` use a client only through these functions and
the extension points of :mod:`._steps` / :mod:`._calls`: a client's private attributes stay the
business of ``_send`` and ``_client`` (``tests/test_layout.py`` checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._core import RequestOptions
    from .._exceptions import APIError
    from ..pricing import UsageTracker
    from ._base_client import BaseClient
    from ._steps import PipelineClient, Sender


def sender_of(client: BaseClient) -> Sender:
    """What sends one attempt of ``client`` through its pipeline's steps (its own pipeline, or a Router's
    sender, which picks a target): for a feature that sends single attempts and judges each answer
    itself (the batch runner, ``compare``'s warm-up, ``doctor``, a Router's targets)."""
    return client._sender


def share_usage(client: BaseClient, tracker: UsageTracker, budget_usd: float | None) -> None:
    """Make ``client`` charge ``tracker`` (a Router's target charges a tracker chained to the router's
    total; ``run_batch``'s twin charges the caller's client), reserving each request's worst case
    before sending when ``budget_usd`` is set (the tracker's own budget, or one it charges on to)."""
    client._usage = tracker
    client._budget_usd = budget_usd


def record_call(client: BaseClient, options: RequestOptions) -> None:
    """Step 1 of a call, for a caller that does not start it through the client's retry loop: append it
    to the client's sample (``record_to``); never fails the call."""
    client._pipeline.record(options)


def owns_pool(client: BaseClient | PipelineClient) -> bool:
    """Whether ``client`` made (or will make) its HTTP client itself; a caller's own ``http_client``
    is never closed, bypassed or rebuilt by us."""
    return client._owns_http


def http_client_of(client: BaseClient | PipelineClient) -> Any:
    """The HTTP client ``client`` sends on (made on first use): a send step may look at its transport."""
    return client._http


def reads_raw_bytes(client: BaseClient) -> bool:
    """Whether ``client``'s streams reach its caller as the bytes sent (``with_streaming_response``):
    nothing may be added to them, or taken over mid-way (a Router hands such a stream on as it is)."""
    return client._reads_raw_bytes


def status_error(client: BaseClient, response: Any, content: bytes, request: Any) -> APIError:
    """The status error an answer to ``client`` carries (its class by status, ``Retry-After`` read,
    redacted), for a feature that judges answers itself (the batch runner, ``doctor``)."""
    return client._status_error(response, content, request)
