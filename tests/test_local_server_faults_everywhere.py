"""Queued faults reach every answer of the local server -- binary (speech, file content), text
(transcriptions) and streams that are not chat's (Responses API, completions) -- so a test can prove a
client's retries and stream errors on each endpoint, not only on chat and embeddings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from holyclient import APIConnectionError, APIStatusError, Client
from holyclient.testing import Fault, LocalServer
from support import KEY


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def client(server: LocalServer) -> Iterator[Client]:
    server.reset()
    with Client(api_key=KEY, base_url=server.base_url, max_retries=2, sleep=lambda _: None) as c:
        yield c


def test_speech_retries_a_queued_503_and_returns_the_audio(server: LocalServer, client: Client) -> None:
    server.enqueue(Fault.status(503))
    speech = client.audio.speech.create(model="tts-1", voice="alloy", input="after a fault")
    assert speech.content.startswith(b"ID3")
    assert server.stats["by_status"] == {"503": 1, "200": 1}


def test_file_content_retries_a_dropped_connection(server: LocalServer, client: Client) -> None:
    uploaded = client.files.create(file=b'{"x": 1}\n', purpose="batch")
    server.enqueue(Fault.drop())
    assert client.files.content(uploaded.id).content == b'{"x": 1}\n'
    assert server.stats["by_fault"] == {"drop": 1}


def test_a_text_transcription_retries_a_queued_500(server: LocalServer, client: Client) -> None:
    server.enqueue(Fault.status(500))
    text = client.audio.transcriptions.create(model="whisper-1", file=b"spoken", response_format="text")
    assert "spoken" in str(text)
    assert server.stats["by_status"] == {"500": 1, "200": 1}


def test_a_malformed_fault_cuts_a_binary_answer_in_half(server: LocalServer, client: Client) -> None:
    whole = client.audio.speech.create(model="tts-1", voice="alloy", input="same text").content
    server.enqueue(Fault.malformed())
    half = client.audio.speech.create(model="tts-1", voice="alloy", input="same text").content
    assert half == whole[: len(whole) // 2]


def test_a_responses_stream_fails_with_the_queued_error_event(server: LocalServer, client: Client) -> None:
    server.enqueue(Fault.stream_error(after_chunks=2))
    seen = []
    with pytest.raises(APIStatusError):
        for event in client.responses.create(model="gpt-4.1", input="hello", stream=True):
            seen.append(event.type)
    assert seen[:2] == ["response.created", "response.in_progress"]
    assert "response.completed" not in seen


def test_a_cut_completions_stream_never_reaches_its_end(server: LocalServer, client: Client) -> None:
    whole = list(client.completions.create(model="gpt-3.5-turbo-instruct", prompt="one two", stream=True))
    server.enqueue(Fault.stream_cut(after_chunks=1))
    cut: list[object] = []
    with pytest.raises(APIConnectionError):
        cut.extend(client.completions.create(model="gpt-3.5-turbo-instruct", prompt="one two", stream=True))
    assert len(cut) <= 1 < len(whole)
