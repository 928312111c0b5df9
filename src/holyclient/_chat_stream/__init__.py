"""The chat stream helper: typed events over a streamed chat completion, and chunk accumulation.

``_accumulate`` folds chunks into a completion, ``_state`` is the sans-IO state machine that turns
each chunk into events, ``_stream`` holds the sync/async iterators and context managers over it.
"""

from __future__ import annotations

from ._accumulate import accumulate_chunks
from ._events import (
    ChatCompletionStreamEvent,
    ChunkEvent,
    ContentDeltaEvent,
    ContentDoneEvent,
    FunctionToolCallArgumentsDeltaEvent,
    FunctionToolCallArgumentsDoneEvent,
    LogprobsContentDeltaEvent,
    LogprobsContentDoneEvent,
    LogprobsRefusalDeltaEvent,
    LogprobsRefusalDoneEvent,
    RefusalDeltaEvent,
    RefusalDoneEvent,
)
from ._state import ChatCompletionStreamState
from ._stream import (
    AsyncChatCompletionStream,
    AsyncChatCompletionStreamManager,
    ChatCompletionStream,
    ChatCompletionStreamManager,
)

__all__ = [
    "AsyncChatCompletionStream",
    "AsyncChatCompletionStreamManager",
    "ChatCompletionStream",
    "ChatCompletionStreamEvent",
    "ChatCompletionStreamManager",
    "ChatCompletionStreamState",
    "ChunkEvent",
    "ContentDeltaEvent",
    "ContentDoneEvent",
    "FunctionToolCallArgumentsDeltaEvent",
    "FunctionToolCallArgumentsDoneEvent",
    "LogprobsContentDeltaEvent",
    "LogprobsContentDoneEvent",
    "LogprobsRefusalDeltaEvent",
    "LogprobsRefusalDoneEvent",
    "RefusalDeltaEvent",
    "RefusalDoneEvent",
    "accumulate_chunks",
]
