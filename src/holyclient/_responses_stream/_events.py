"""The events the ``responses.stream()`` helper adds to or changes in the raw stream, as openai's.

Text and argument deltas carry the ``snapshot`` accumulated so far, ``output_text.done`` carries the
text decoded into the ``text_format`` class, and ``response.completed`` carries a
:class:`~holyclient.types.responses.ParsedResponse`. Every other event is the raw event, unchanged.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from ..types import responses as raw
from ..types._parsed_response import ParsedResponse

TextFormatT = TypeVar("TextFormatT")


class ResponseTextDeltaEvent(raw.ResponseTextDeltaEvent):
    snapshot: str
    """The text of this content part so far, this delta included."""


class ResponseTextDoneEvent(raw.ResponseTextDoneEvent, Generic[TextFormatT]):
    parsed: TextFormatT | None = None
    """The text decoded into the ``text_format`` class (``None`` without one)."""


class ResponseFunctionCallArgumentsDeltaEvent(raw.ResponseFunctionCallArgumentsDeltaEvent):
    snapshot: str
    """The arguments of this call so far, this delta included."""


class ResponseCompletedEvent(raw.ResponseCompletedEvent, Generic[TextFormatT]):
    response: ParsedResponse[TextFormatT]


ResponseStreamEvent = raw.ResponseStreamEvent
