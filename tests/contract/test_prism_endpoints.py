"""Contract tests of the endpoints beyond chat, embeddings and models (see ``test_prism_contract``).

Prism validates each request holyclient sends (JSON or multipart body, path and query parameters)
against the official spec and answers with the spec's example, which must parse into our models.
The Prism fixture comes from ``test_prism_contract``, which also lists these operations in
``OPERATIONS`` so that the reduced spec it serves contains them.
"""

from __future__ import annotations

import io
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

import holyclient
from contract.test_prism_contract import KEY, MODEL, prism_base_url  # noqa: F401 - the session fixture
from holyclient import UnprocessableEntityError
from holyclient._exceptions import error_text
from holyclient.types.audio import Transcription, Translation
from holyclient.types.batches import Batch
from holyclient.types.completions import Completion
from holyclient.types.files import FileDeleted, FileObject
from holyclient.types.images import ImagesResponse
from holyclient.types.moderations import ModerationCreateResponse
from holyclient.types.responses import Response

pytestmark = pytest.mark.contract


@pytest.fixture
def client(prism_base_url: str) -> Iterator[holyclient.Client]:  # noqa: F811
    with holyclient.Client(api_key=KEY, base_url=prism_base_url, max_retries=0) as client:
        yield client


RESPONSES_CASES: dict[str, dict[str, Any]] = {
    "string-input": {"input": "Tell me a joke."},
    "message-list-and-instructions": {
        # string content: a list of parts also matches a second schema of the spec's ``oneOf``
        "input": [{"role": "user", "content": "hi"}],
        "instructions": "Be brief.",
        "max_output_tokens": 64,
        "temperature": 0.5,
        "metadata": {"team": "a"},
    },
    "function-tool": {
        "input": "weather?",
        "tools": [
            {"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": False}
        ],
        "tool_choice": "auto",
    },
}


@pytest.mark.parametrize("params", RESPONSES_CASES.values(), ids=RESPONSES_CASES.keys())
def test_prism_accepts_responses_request(client: holyclient.Client, params: dict[str, Any]) -> None:
    response = client.responses.create(model=MODEL, **params)

    assert isinstance(response, Response)
    assert isinstance(response.output_text, str)


def test_prism_accepts_stored_response_operations(client: holyclient.Client) -> None:
    retrieved = client.responses.retrieve("resp_123")
    items = client.responses.input_items.list("resp_123", limit=5, order="asc")
    cancelled = client.responses.cancel("resp_123")
    deleted = client.responses.delete("resp_123")

    assert isinstance(retrieved, Response) and isinstance(cancelled, Response)
    assert items.data is not None
    assert deleted is None


def test_prism_accepts_legacy_completion_moderation_and_image_requests(client: holyclient.Client) -> None:
    completion = client.completions.create(
        model="gpt-3.5-turbo-instruct", prompt=["a", "b"], max_tokens=5, stop="\n", echo=False, seed=1
    )
    moderation = client.moderations.create(input=["text", "more"], model="omni-moderation-latest")
    images = client.images.generate(prompt="a cat", model="dall-e-3", n=1, size="1024x1024", quality="hd")

    assert isinstance(completion, Completion) and completion.choices
    assert isinstance(moderation, ModerationCreateResponse) and moderation.results
    assert isinstance(moderation.results[0].categories.self_harm_intent, bool)
    assert isinstance(images, ImagesResponse)


def test_prism_accepts_multipart_image_edit_and_variation(client: holyclient.Client) -> None:
    edit = client.images.edit(
        model="dall-e-2", image=("a.png", b"PNG"), mask=("m.png", b"PNG"), prompt="a hat", n=1, size="256x256"
    )
    variation = client.images.create_variation(image=("a.png", b"PNG"), n=2, response_format="b64_json")

    assert isinstance(edit, ImagesResponse) and isinstance(variation, ImagesResponse)


def test_prism_accepts_speech_request(client: holyclient.Client) -> None:
    """Prism validates, then fails to frame its binary example (a connection error, never a 422)."""
    try:
        speech = client.audio.speech.create(
            model="gpt-4o-mini-tts", voice="alloy", input="Hello", response_format="mp3", speed=1.0
        )
    except holyclient.APIConnectionError as exc:
        assert "Transfer-Encoding" in error_text(exc)  # the library's words: a note
    else:
        assert isinstance(speech.content, bytes)
    with pytest.raises(UnprocessableEntityError):  # the same call with an invalid body is refused
        client.audio.speech.create(model="gpt-4o-mini-tts", voice="alloy", input="Hello", speed=9.0)


def test_prism_accepts_multipart_transcription_and_translation(
    client: holyclient.Client, tmp_path: pathlib.Path
) -> None:
    audio = tmp_path / "speech.mp3"
    audio.write_bytes(b"ID3 not really audio")
    transcription = client.audio.transcriptions.create(
        model="whisper-1",
        file=audio,
        language="en",
        temperature=0.0,
        timestamp_granularities=["word", "segment"],
    )
    translation = client.audio.translations.create(model="whisper-1", file=("a.mp3", b"ID3"), prompt="French")

    assert isinstance(transcription, Transcription)
    assert isinstance(translation, Translation)


def test_prism_accepts_files_operations(client: holyclient.Client) -> None:
    created = client.files.create(file=("batch.jsonl", io.BytesIO(b'{"a": 1}\n')), purpose="batch")
    page = client.files.list(purpose="batch", limit=10, order="desc")
    retrieved = client.files.retrieve("file-abc123")
    deleted = client.files.delete("file-abc123")

    assert isinstance(created, FileObject)
    assert all(isinstance(f, FileObject) for f in page.data)
    assert isinstance(retrieved, FileObject)
    assert isinstance(deleted, FileDeleted)


def test_prism_accepts_batch_operations(client: holyclient.Client) -> None:
    created = client.batches.create(
        input_file_id="file-abc123",
        endpoint="/v1/chat/completions",
        completion_window="24h",
        metadata={"k": "v"},
    )
    retrieved = client.batches.retrieve("batch_abc123")
    page = client.batches.list(limit=2)
    cancelled = client.batches.cancel("batch_abc123")

    assert isinstance(created, Batch) and isinstance(retrieved, Batch) and isinstance(cancelled, Batch)
    assert all(isinstance(b, Batch) for b in page.data)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.batches.create(
            input_file_id="f", endpoint="/v1/chat/completions", completion_window="1h"
        ),
        lambda c: c.images.generate(prompt="x", extra_body={"n": "two"}),
        lambda c: c.moderations.create(input="x", extra_body={"model": 7}),
    ],
    ids=["batch-window", "image-n", "moderation-model"],
)
def test_prism_rejects_invalid_endpoint_requests_with_422(client: holyclient.Client, call: Any) -> None:
    with pytest.raises(UnprocessableEntityError):
        call(client)
