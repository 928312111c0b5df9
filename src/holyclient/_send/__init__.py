"""The send path both clients share: configuration, request building, attempts (budget, idempotency,
unknown outcomes), responses, streams, pages, the recorder. Resources are typed against it; the
clients in :mod:`holyclient._client` bind the resources on top of it.

Its extension points are named: a :class:`SendStep` around one attempt's wire, a :class:`Sender` for
one attempt, a :class:`Caller` / :class:`AsyncCaller` for one whole call. What a feature needs from a
client is a function here (:func:`sender_of`, :func:`status_error`, :func:`share_usage`,
:func:`owns_pool`, :func:`http_client_of`, :func:`record_call`, :func:`bind_page`, :func:`unwrap`,
:func:`in_mode_of`, :func:`opening_error`, :func:`reported_usage`, :func:`with_idempotency_key`,
:func:`reads_raw_bytes`, ``api_key=NO_KEY``), never a private attribute."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from ._attempts import with_idempotency_key
from ._base_client import RESOURCE_NAMES, BaseClient
from ._calls import (
    AsyncCaller,
    AsyncRetryingCaller,
    Caller,
    RetryingCaller,
    bind_page,
    in_mode_of,
    unwrap,
)
from ._callsite import AsyncCallSite, SyncCallSite
from ._chunk_reads import ChunkDecoder
from ._custom_requests import AsyncRequestMethods, SyncRequestMethods
from ._event_stream import AsyncEventStream, AsyncStreamManager, EventStream, StreamManager
from ._features import (
    http_client_of,
    owns_pool,
    reads_raw_bytes,
    record_call,
    sender_of,
    share_usage,
    status_error,
)
from ._pipeline import Pipeline
from ._recorder import JsonlSink, batch_line, make_recorder, replayable
from ._response import ResponseModes
from ._settings import NO_KEY, ClientSettings, settings_of
from ._steps import AsyncSend, Exchange, Prepared, Preparer, Sender, SendStep, asent, clean_failure
from ._stream_ending import opening_error
from ._streaming import (
    AsyncStream,
    Stream,
    afirst_event,
    first_event,
    reported_usage,
)

if TYPE_CHECKING:
    from ._pagination import (
        AsyncCursorPage,
        AsyncPage,
        AsyncPaginator,
        BaseAsyncPage,
        BaseSyncPage,
        SyncCursorPage,
        SyncPage,
    )

#: The pages are pydantic models: loaded on first use, so that ``import holyclient`` loads no model.
_LAZY = dict.fromkeys(
    [
        "AsyncCursorPage",
        "AsyncEventStream",
        "AsyncPage",
        "AsyncPaginator",
        "BaseAsyncPage",
        "BaseSyncPage",
        "SyncCursorPage",
        "SyncPage",
    ],
    "._pagination",
)


__getattr__ = _lazy_names(__name__, _LAZY, globals())


__all__ = [
    "NO_KEY",
    "RESOURCE_NAMES",
    "AsyncCallSite",
    "AsyncCaller",
    "AsyncCursorPage",
    "AsyncEventStream",
    "AsyncPage",
    "AsyncPaginator",
    "AsyncRequestMethods",
    "AsyncRetryingCaller",
    "AsyncSend",
    "AsyncStream",
    "AsyncStreamManager",
    "BaseAsyncPage",
    "BaseClient",
    "BaseSyncPage",
    "Caller",
    "ChunkDecoder",
    "ClientSettings",
    "EventStream",
    "Exchange",
    "JsonlSink",
    "Pipeline",
    "Prepared",
    "Preparer",
    "ResponseModes",
    "RetryingCaller",
    "SendStep",
    "Sender",
    "Stream",
    "StreamManager",
    "SyncCallSite",
    "SyncCursorPage",
    "SyncPage",
    "SyncRequestMethods",
    "afirst_event",
    "asent",
    "batch_line",
    "bind_page",
    "clean_failure",
    "first_event",
    "http_client_of",
    "in_mode_of",
    "make_recorder",
    "opening_error",
    "owns_pool",
    "reads_raw_bytes",
    "record_call",
    "replayable",
    "reported_usage",
    "sender_of",
    "settings_of",
    "share_usage",
    "status_error",
    "unwrap",
    "with_idempotency_key",
]
