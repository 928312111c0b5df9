"""The Responses stream helper's state machine: raw event in, snapshot updated, events out. No I/O.

``ResponseStream`` and its async twin only pull raw events and hand them to
:meth:`ResponseStreamState.handle_event`; usable directly over ``responses.create(stream=True)``.
The final response is decoded by :func:`holyclient._parsing._responses.parse_response`, as
``responses.parse()`` decodes its answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

from .._parsing import parse_response, parse_text
from ..types._parsed_response import (
    ParsedResponse,
    ParsedResponseFunctionToolCall,
    ParsedResponseOutputMessage,
    ParsedResponseOutputText,
)
from ..types.responses import ResponseStreamEvent
from . import _events as ev

TextFormatT = TypeVar("TextFormatT")


class ResponseStreamState(Generic[TextFormatT]):
    """Accumulates raw events into a response and says which events each one produces.

    Usable on its own::

        state = ResponseStreamState(text_format=None, input_tools=None)
        for event in client.responses.create(..., stream=True):
            state.handle_event(event)
        response = state.completed_response
    """

    def __init__(
        self,
        *,
        text_format: type[TextFormatT] | None = None,
        input_tools: Iterable[Mapping[str, Any]] | None = None,
        starting_after: int | None = None,
    ) -> None:
        self._text_format = text_format
        self._starting_after = starting_after
        self._tools = list(input_tools or ())
        self._snapshot: ParsedResponse[TextFormatT] | None = None
        self._items: dict[int, Any] = {}
        self.completed_response: ParsedResponse[TextFormatT] | None = None

    @property
    def current_snapshot(self) -> ParsedResponse[TextFormatT]:
        """The response accumulated so far."""
        if self._snapshot is None:
            raise RuntimeError("No event received yet")
        return self._snapshot

    def handle_event(self, event: ResponseStreamEvent) -> list[ResponseStreamEvent]:
        """Fold ``event`` into the snapshot and return the events the helper yields for it (none up to
        ``starting_after``: a resumed stream accumulates every event but yields only the new ones)."""
        events = self._handle(event)
        after = self._starting_after
        return events if after is None else [e for e in events if e.sequence_number > after]

    def _handle(self, event: Any) -> list[Any]:
        # Events are told apart by their ``type``, as on the wire: the event classes may be a hierarchy
        # or a union, and an event type this SDK does not know still passes through unchanged.
        kind = event.type
        if self._snapshot is None:
            if kind != "response.created":
                raise RuntimeError(f"Expected to have received `response.created` before `{kind}`")
            self._snapshot = ParsedResponse.model_validate(event.response.to_dict())
            self._items = dict(enumerate(self._snapshot.output))
            return [event]
        if kind == "response.output_item.added":
            self._add_item(event.output_index, event.item.to_dict())
        elif kind == "response.content_part.added":
            item = self._item(event.output_index)
            if isinstance(item, ParsedResponseOutputMessage):
                item.content.append(_part(_as_dict(event.part)))
        elif kind == "response.output_text.delta":
            part = self._text_part(event.output_index, event.content_index)
            part.text += event.delta
            return [_with(ev.ResponseTextDeltaEvent, event, snapshot=part.text)]
        elif kind == "response.output_text.done":
            item = self._item(event.output_index)
            parsed = parse_text(event.text, self._text_format, getattr(item, "phase", None))
            return [_with(ev.ResponseTextDoneEvent, event, parsed=parsed)]
        elif kind == "response.function_call_arguments.delta":
            call = self._item(event.output_index)
            if not isinstance(call, ParsedResponseFunctionToolCall):
                raise RuntimeError(f"Arguments delta for output {event.output_index}, not a function call")
            call.arguments += event.delta
            return [_with(ev.ResponseFunctionCallArgumentsDeltaEvent, event, snapshot=call.arguments)]
        elif kind == "response.completed":
            final: ParsedResponse[Any] = ParsedResponse.model_validate(event.response.to_dict())
            self.completed_response = parse_response(final, self._text_format, self._tools)
            fields = {**event.to_dict(), "response": self.completed_response}
            return [ev.ResponseCompletedEvent.model_construct(**fields)]
        return [event]

    def _add_item(self, output_index: int, data: dict[str, Any]) -> None:
        if output_index in self._items:
            raise RuntimeError(f"Duplicate response output index {output_index}.")
        snapshot = self.current_snapshot
        item = ParsedResponse.model_validate({"id": snapshot.id, "output": [data]}).output[0]
        snapshot.output.append(item)
        self._items[output_index] = item

    def _item(self, output_index: int) -> Any:
        try:
            return self._items[output_index]
        except KeyError:
            raise RuntimeError(
                f"Received a content event for output index {output_index} before receiving its output item"
            ) from None

    def _text_part(self, output_index: int, content_index: int) -> ParsedResponseOutputText[Any]:
        item = self._item(output_index)
        part = item.content[content_index] if isinstance(item, ParsedResponseOutputMessage) else None
        if not isinstance(part, ParsedResponseOutputText):
            raise RuntimeError(f"Text delta for output {output_index}, part {content_index}: not a text part")
        return part


def _as_dict(value: Any) -> dict[str, Any]:
    return value.to_dict() if hasattr(value, "to_dict") else dict(value)


def _part(part: Mapping[str, Any]) -> Any:
    return ParsedResponseOutputMessage.model_validate({"content": [dict(part)]}).content[0]


def _with(cls: Any, event: Any, **fields: Any) -> Any:
    """``event`` as the helper's ``cls``, every field it carried kept, ``fields`` added."""
    return cls.model_validate({**event.to_dict(), **fields})
