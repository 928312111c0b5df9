"""The Responses stream helper (``client.responses.stream()``): typed events over a streamed response.

``_state`` is the sans-IO state machine that turns each raw event into the helper's events and
accumulates the response, ``_stream`` holds the sync/async iterators and context managers over it,
``_events`` the events the helper changes (deltas with snapshots, parsed text, the parsed response).
"""

from __future__ import annotations

from ._events import (
    ResponseCompletedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)
from ._state import ResponseStreamState
from ._stream import AsyncResponseStream, AsyncResponseStreamManager, ResponseStream, ResponseStreamManager

__all__ = [
    "AsyncResponseStream",
    "AsyncResponseStreamManager",
    "ResponseCompletedEvent",
    "ResponseFunctionCallArgumentsDeltaEvent",
    "ResponseStream",
    "ResponseStreamManager",
    "ResponseStreamState",
    "ResponseTextDeltaEvent",
    "ResponseTextDoneEvent",
]
