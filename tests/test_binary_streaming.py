"""Binary bodies: ``with_streaming_response`` leaves the audio on the wire until it is read; errors and
retries behave as for any call."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import httpx2
import pytest

from holyclient import BadRequestError, Client
from support import KEY

CHUNKS = [b"ID3", b"-part-1", b"-part-2"]


class Body(httpx2.SyncByteStream):
    """A response body that records how far it has been read."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in CHUNKS:
            self.sent.append(chunk)
            yield chunk

    def close(self) -> None:
        self.closed = True


def test_streamed_speech_is_read_only_when_written_to_the_file(tmp_path: pathlib.Path) -> None:
    body = Body()
    http = httpx2.Client(transport=httpx2.MockTransport(lambda _: httpx2.Response(200, stream=body)))
    target = tmp_path / "speech.mp3"
    with Client(api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=http) as client:
        with client.audio.speech.with_streaming_response.create(model="tts-1", voice="alloy", input="x") as r:
            assert body.sent == []  # nothing consumed before the caller reads
            r.stream_to_file(target)
        assert body.closed

    assert target.read_bytes() == b"".join(CHUNKS)


def test_streamed_speech_retries_a_5xx_then_raises_a_4xx_with_its_message() -> None:
    answers = [
        httpx2.Response(503, json={"error": {"message": "busy"}}),
        httpx2.Response(400, json={"error": {"message": "bad voice", "type": "invalid_request_error"}}),
    ]
    sleeps: list[float] = []
    http = httpx2.Client(transport=httpx2.MockTransport(lambda _: answers.pop(0)))
    with (
        Client(
            api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=http, sleep=sleeps.append
        ) as client,
        pytest.raises(BadRequestError, match="bad voice"),
    ):
        client.audio.speech.with_streaming_response.create(model="tts-1", voice="nobody", input="x")

    assert len(sleeps) == 1 and answers == []
