"""The stream helper's state machine: chunk in, snapshot updated, events out. No I/O.

``ChatCompletionStream`` and its async twin only pull chunks and hand them to
:meth:`ChatCompletionStreamState.handle_chunk`; usable directly over ``create(stream=True)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

from pydantic_core import from_json

from .._exceptions import ContentFilterFinishReasonError, LengthFinishReasonError
from .._parsing import (
    ParsedChatCompletion,
    ParsedChoice,
    find_tool,
    has_parseable_input,
    is_rich_response_format,
    maybe_parse_content,
    parse_chat_completion,
    parse_tool_arguments,
)
from ..types._chat import ChatCompletionChunk, ChunkChoice
from . import _events as ev
from ._accumulate import Snapshot, accumulate_chunk, as_final

ResponseFormatT = TypeVar("ResponseFormatT")
Event = ev.ChatCompletionStreamEvent


class ChatCompletionStreamState(Generic[ResponseFormatT]):
    """Accumulates chunks into a completion and says which events each chunk produces.

    Usable on its own over ``create(stream=True)``::

        state = ChatCompletionStreamState()
        for chunk in client.chat.completions.create(..., stream=True):
            state.handle_chunk(chunk)
        completion = state.get_final_completion()
    """

    def __init__(
        self,
        *,
        input_tools: Iterable[Mapping[str, Any]] | None = None,
        response_format: type[ResponseFormatT] | Mapping[str, Any] | None = None,
    ) -> None:
        self._snapshot: Snapshot | None = None
        self._choices: list[_ChoiceState] = []
        self._tools = list(input_tools or ())
        self._response_format = response_format
        self._rich_format = response_format if is_rich_response_format(response_format) else None
        self._parseable = has_parseable_input(response_format, self._tools)

    @property
    def current_completion_snapshot(self) -> ParsedChatCompletion[Any]:
        """The completion accumulated so far (content parsed as partial JSON, if any)."""
        if self._snapshot is None:
            raise RuntimeError("No chunk received yet")
        return self._snapshot

    def get_final_completion(self) -> ParsedChatCompletion[ResponseFormatT]:
        """The accumulated completion, decoded as ``parse()`` would; call it once the stream ended.

        Raises:
            LengthFinishReasonError, ContentFilterFinishReasonError: as ``parse()``.
        """
        return as_final(
            parse_chat_completion(self.current_completion_snapshot, self._rich_format, self._tools)
        )

    def handle_chunk(self, chunk: ChatCompletionChunk) -> list[Event]:
        """Fold ``chunk`` into the snapshot and return the events it produces, in order."""
        first = self._snapshot is None
        self._snapshot = snapshot = accumulate_chunk(self._snapshot, chunk)
        if not first:  # as the official SDK: the first chunk only starts the snapshot
            for choice in chunk.choices:
                self._after_merge(snapshot.choices[choice.index], choice)
        events: list[Event] = [ev.ChunkEvent.model_construct(type="chunk", chunk=chunk, snapshot=snapshot)]
        for choice in chunk.choices:
            events.extend(self._choice_events(snapshot.choices[choice.index], choice))
        return events

    def _after_merge(self, choice_snapshot: ParsedChoice[Any], choice: ChunkChoice) -> None:
        """Fail fast on a cut answer; refresh the partial parses."""
        if choice.finish_reason and self._parseable:
            if choice.finish_reason == "length":
                raise LengthFinishReasonError(completion=self._snapshot)
            if choice.finish_reason == "content_filter":
                raise ContentFilterFinishReasonError(completion=self._snapshot)
        message = choice_snapshot.message
        # (partial parsing fails on white space alone)
        if (
            self._rich_format is not None
            and message.content
            and message.content.lstrip()
            and not message.refusal
        ):
            message.parsed = from_json(message.content, allow_partial=True)
        for delta in choice.delta.tool_calls or ():
            call = (message.tool_calls or [])[delta.index]
            if call.type != "function" or call.function is None:
                continue
            tool = find_tool(self._tools, call.function.name)
            if tool is not None and tool.get("strict") and call.function.arguments:
                call.function.parsed_arguments = from_json(call.function.arguments, allow_partial=True)

    def _choice_events(self, choice_snapshot: ParsedChoice[Any], choice: ChunkChoice) -> list[Event]:
        while len(self._choices) <= choice.index:
            self._choices.append(_ChoiceState())
        state = self._choices[choice.index]
        message = choice_snapshot.message
        delta = choice.delta
        events: list[Event] = []
        if delta.content is not None and message.content is not None:
            events.append(
                ev.ContentDeltaEvent.model_construct(
                    type="content.delta", delta=delta.content, snapshot=message.content, parsed=message.parsed
                )
            )
        if delta.refusal is not None and message.refusal is not None:
            events.append(
                ev.RefusalDeltaEvent.model_construct(
                    type="refusal.delta", delta=delta.refusal, snapshot=message.refusal
                )
            )
        for call_delta in delta.tool_calls or ():
            call = (message.tool_calls or [])[call_delta.index]
            if call.type == "function" and call.function is not None:
                events.append(
                    ev.FunctionToolCallArgumentsDeltaEvent.model_construct(
                        type="tool_calls.function.arguments.delta",
                        name=call.function.name,
                        index=call_delta.index,
                        arguments=call.function.arguments,
                        parsed_arguments=call.function.parsed_arguments,
                        arguments_delta=(call_delta.function.arguments if call_delta.function else None)
                        or "",
                    )
                )
        logprobs, snapshot_logprobs = choice.logprobs, choice_snapshot.logprobs
        if logprobs is not None and snapshot_logprobs is not None:
            if logprobs.content and snapshot_logprobs.content:
                events.append(
                    ev.LogprobsContentDeltaEvent.model_construct(
                        type="logprobs.content.delta",
                        content=logprobs.content,
                        snapshot=snapshot_logprobs.content,
                    )
                )
            if logprobs.refusal and snapshot_logprobs.refusal:
                events.append(
                    ev.LogprobsRefusalDeltaEvent.model_construct(
                        type="logprobs.refusal.delta",
                        refusal=logprobs.refusal,
                        snapshot=snapshot_logprobs.refusal,
                    )
                )
        events.extend(state.done_events(choice_snapshot, choice, self._response_format, self._tools))
        return events


class _ChoiceState:
    """What has been announced as done for one choice; a tool call is done when the next one starts."""

    def __init__(self) -> None:
        self.content_done = False
        self.refusal_done = False
        self.logprobs_content_done = False
        self.logprobs_refusal_done = False
        self.done_tool_calls: set[int] = set()
        self.current_tool_call: int | None = None

    def done_events(
        self,
        choice_snapshot: ParsedChoice[Any],
        choice: ChunkChoice,
        response_format: object,
        tools: list[Mapping[str, Any]],
    ) -> list[Event]:
        events: list[Event] = []
        if choice_snapshot.finish_reason:
            events.extend(self._content_done(choice_snapshot, response_format))
            if self.current_tool_call is not None:
                self._tool_done(events, choice_snapshot, self.current_tool_call, tools)
        for call_delta in choice.delta.tool_calls or ():
            if self.current_tool_call != call_delta.index:
                events.extend(self._content_done(choice_snapshot, response_format))
                if self.current_tool_call is not None:
                    self._tool_done(events, choice_snapshot, self.current_tool_call, tools)
            self.current_tool_call = call_delta.index
        return events

    def _content_done(self, choice_snapshot: ParsedChoice[Any], response_format: object) -> list[Event]:
        events: list[Event] = []
        message = choice_snapshot.message
        if message.content and not self.content_done:
            self.content_done = True
            message.parsed = maybe_parse_content(response_format, message)  # now the full class
            events.append(
                ev.ContentDoneEvent.model_construct(
                    type="content.done", content=message.content, parsed=message.parsed
                )
            )
        if message.refusal is not None and not self.refusal_done:
            self.refusal_done = True
            events.append(ev.RefusalDoneEvent.model_construct(type="refusal.done", refusal=message.refusal))
        logprobs = choice_snapshot.logprobs
        if logprobs is not None and logprobs.content is not None and not self.logprobs_content_done:
            self.logprobs_content_done = True
            events.append(
                ev.LogprobsContentDoneEvent.model_construct(
                    type="logprobs.content.done", content=logprobs.content
                )
            )
        if logprobs is not None and logprobs.refusal is not None and not self.logprobs_refusal_done:
            self.logprobs_refusal_done = True
            events.append(
                ev.LogprobsRefusalDoneEvent.model_construct(
                    type="logprobs.refusal.done", refusal=logprobs.refusal
                )
            )
        return events

    def _tool_done(
        self,
        events: list[Event],
        choice_snapshot: ParsedChoice[Any],
        index: int,
        tools: list[Mapping[str, Any]],
    ) -> None:
        if index in self.done_tool_calls:
            return
        self.done_tool_calls.add(index)
        call = (choice_snapshot.message.tool_calls or [])[index]
        if call.type != "function" or call.function is None:
            return
        parsed = parse_tool_arguments(tools, call.function.name, call.function.arguments)
        call.function.parsed_arguments = parsed
        events.append(
            ev.FunctionToolCallArgumentsDoneEvent.model_construct(
                type="tool_calls.function.arguments.done",
                index=index,
                name=call.function.name,
                arguments=call.function.arguments,
                parsed_arguments=parsed,
            )
        )
