"""The endpoint types are importable under openai's names and places (``openai.types``,
``openai.types.responses``, ``openai.types.audio``)."""

from __future__ import annotations

import openai.types
import openai.types.audio
import openai.types.responses
import pytest

import holyclient.types
import holyclient.types.audio
import holyclient.types.responses

TOP = [
    "Batch",
    "BatchError",
    "BatchRequestCounts",
    "Completion",
    "CompletionChoice",
    "FileDeleted",
    "FileObject",
    "Image",
    "ImagesResponse",
    "Moderation",
    "ModerationCreateResponse",
]
RESPONSES = [
    "Response",
    "ResponseCompletedEvent",
    "ResponseCreatedEvent",
    "ResponseErrorEvent",
    "ResponseFunctionToolCall",
    "ResponseOutputMessage",
    "ResponseOutputText",
    "ResponseStreamEvent",
    "ResponseTextDeltaEvent",
    "ResponseTextDoneEvent",
    "ResponseUsage",
]
AUDIO = [
    "Transcription",
    "TranscriptionVerbose",
    "Translation",
    "TranslationVerbose",
    "TranscriptionStreamEvent",
]


@pytest.mark.parametrize("name", TOP)
def test_endpoint_types_are_top_level_where_openai_has_them(name: str) -> None:
    assert hasattr(openai.types, name), f"openai.types has no {name}: fix the list"
    assert name in holyclient.types.__all__


@pytest.mark.parametrize(
    ("ours", "theirs", "name"),
    [(holyclient.types.responses, openai.types.responses, n) for n in RESPONSES]
    + [(holyclient.types.audio, openai.types.audio, n) for n in AUDIO],
)
def test_response_and_audio_types_live_where_openai_has_them(ours: object, theirs: object, name: str) -> None:
    assert hasattr(theirs, name), f"openai has no {name}: fix the list"
    assert hasattr(ours, name)


def test_an_unknown_stream_event_or_output_item_still_parses() -> None:
    event = holyclient.types.responses.ResponseStreamEvent.model_validate_json(
        b'{"type": "response.new", "x": 1}'
    )
    response = holyclient.types.responses.Response.model_validate(
        {"id": "r", "output": [{"type": "web_search_call", "id": "ws"}, {"type": "message", "content": []}]}
    )

    assert type(event) is holyclient.types.responses.ResponseStreamEvent and event.x == 1  # type: ignore[attr-defined]
    assert [type(item).__name__ for item in response.output] == [
        "ResponseOutputItem",
        "ResponseOutputMessage",
    ]
    assert response.output_text == ""
