"""The send path both clients share: configuration, request building, attempts (budget, idempotency,
unknown outcomes), responses, streams, pages, the recorder. Resources are typed against it; the
clients in :mod:`holyclient._client` bind the resources on top of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from ._base_client import RESOURCE_NAMES, BaseClient
from ._callsite import AsyncCaller, SyncCaller
from ._custom_requests import AsyncRequestMethods, SyncRequestMethods
from ._event_stream import AsyncEventStream, AsyncStreamManager, EventStream, StreamManager
from ._pipeline import Pipeline
from ._recorder import JsonlSink, batch_line, make_recorder, replayable
from ._response import ResponseModes
from ._steps import AsyncSend, Exchange, Prepared, SendStep, asent, clean_failure
from ._streaming import AsyncStream, ChunkDecoder, Stream, afirst_event, first_event

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
    "RESOURCE_NAMES",
    "AsyncCaller",
    "AsyncCursorPage",
    "AsyncEventStream",
    "AsyncPage",
    "AsyncPaginator",
    "AsyncRequestMethods",
    "AsyncSend",
    "AsyncStream",
    "AsyncStreamManager",
    "BaseAsyncPage",
    "BaseClient",
    "BaseSyncPage",
    "ChunkDecoder",
    "EventStream",
    "Exchange",
    "JsonlSink",
    "Pipeline",
    "Prepared",
    "ResponseModes",
    "SendStep",
    "Stream",
    "StreamManager",
    "SyncCaller",
    "SyncCursorPage",
    "SyncPage",
    "SyncRequestMethods",
    "afirst_event",
    "asent",
    "batch_line",
    "clean_failure",
    "first_event",
    "make_recorder",
    "replayable",
]
