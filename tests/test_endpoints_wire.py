"""Differential: each endpoint call sends what openai sends and returns what openai returns.

The same call runs through ``openai.OpenAI`` and ``holyclient.Client``, each on a MockTransport in front
of a fresh :class:`FakeAPI`; the requests (method, path, query, JSON or multipart body, ``Accept``,
content type) and a projection of the results must be equal.
"""

from __future__ import annotations

import io
import pathlib
import warnings
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from differential.fake_api import FakeAPI
from differential.mock_pair import sdk_client

BASE = "https://api.example.test/v1"
JSONL = b'{"custom_id": "1", "method": "POST", "url": "/v1/chat/completions", "body": {}}\n'


def run(
    sdk: str, call: Callable[[Any, pathlib.Path], Any], tmp_path: pathlib.Path, seed: int = 0
) -> tuple[Any, FakeAPI]:
    api = FakeAPI()
    api.seed_files(seed)
    http = httpx2.Client(transport=httpx2.MockTransport(api))
    client: Any = sdk_client(sdk, http, BASE)
    with http, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # openai deprecates some overloads we mirror
        return call(client, tmp_path), api


def audio_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "speech.wav"
    path.write_bytes(b"hello from a wav file")
    return path


def transcribe_open_file(client: Any, path: pathlib.Path) -> Any:
    with path.open("rb") as file:
        return client.audio.transcriptions.create(model="whisper-1", file=file, response_format="text")


def _events(stream: Any) -> list[tuple[str, str]]:
    return [(event.type, getattr(event, "delta", "")) for event in stream]


CASES: dict[str, tuple[Callable[[Any, pathlib.Path], Any], Callable[[Any], Any]]] = {
    "responses-create": (
        lambda c, _: c.responses.create(
            model="gpt-4o-mini", input="hi there", instructions="Be brief.", max_output_tokens=50
        ),
        lambda r: (r.id, r.output_text, r.usage.input_tokens, r.usage.output_tokens),
    ),
    "responses-create-with-message-list": (
        lambda c, _: c.responses.create(model="gpt-4o-mini", input=[{"role": "user", "content": "a list"}]),
        lambda r: r.output_text,
    ),
    "responses-stream": (
        lambda c, _: _events(c.responses.create(model="gpt-4o-mini", input="stream me", stream=True)),
        lambda events: events,
    ),
    "completions-create": (
        lambda c, _: c.completions.create(
            model="gpt-3.5-turbo-instruct", prompt="Say this", max_tokens=7, stop=["\n"]
        ),
        lambda r: (r.choices[0].text, r.choices[0].finish_reason, r.usage.total_tokens),
    ),
    "completions-stream": (
        lambda c, _: [
            (ch.choices[0].text if ch.choices else None, ch.usage.total_tokens if ch.usage else None)
            for ch in c.completions.create(
                model="gpt-3.5-turbo-instruct",
                prompt="go",
                stream=True,
                stream_options={"include_usage": True},
            )
        ],
        lambda chunks: chunks,
    ),
    "moderations-create": (
        lambda c, _: c.moderations.create(input=["fine", "some violence"], model="omni-moderation-latest"),
        lambda r: [(m.flagged, m.categories.violence, m.categories.self_harm_intent) for m in r.results],
    ),
    "images-generate": (
        lambda c, _: c.images.generate(
            prompt="a cat", model="dall-e-3", n=2, size="1024x1024", response_format="url"
        ),
        lambda r: [image.url for image in r.data],
    ),
    "images-edit-several-images-and-a-mask": (
        lambda c, p: c.images.edit(
            model="gpt-image-1",
            image=[("a.png", b"PNG-a", "image/png"), audio_file(p)],
            mask=("mask.png", io.BytesIO(b"PNG-mask")),
            prompt="add a hat",
            n=2,
        ),
        lambda r: [image.b64_json for image in r.data],
    ),
    "images-create-variation": (
        lambda c, _: c.images.create_variation(image=b"PNG", n=1, size="256x256"),
        lambda r: len(r.data),
    ),
    "audio-speech-create": (
        lambda c, _: c.audio.speech.create(
            model="tts-1", voice="alloy", input="hello", response_format="mp3"
        ),
        lambda r: r.content,
    ),
    "audio-transcriptions-from-path": (
        lambda c, p: c.audio.transcriptions.create(
            model="whisper-1",
            file=audio_file(p),
            language="en",
            temperature=0.2,
            timestamp_granularities=["word", "segment"],
            response_format="verbose_json",
        ),
        lambda r: (type(r).__name__, r.text, r.duration),
    ),
    "audio-transcriptions-from-tuple": (
        lambda c, _: c.audio.transcriptions.create(
            model="whisper-1", file=("a.mp3", b"tuple bytes", "audio/mpeg")
        ),
        lambda r: (type(r).__name__, r.text),
    ),
    "audio-transcriptions-from-file-object-as-text": (
        lambda c, p: transcribe_open_file(c, audio_file(p)),
        lambda r: r,
    ),
    "audio-transcriptions-diarized": (
        lambda c, _: c.audio.transcriptions.create(
            model="gpt-4o-transcribe-diarize", file=b"two voices", response_format="diarized_json"
        ),
        lambda r: (type(r).__name__, r.text),
    ),
    "audio-transcriptions-streamed": (
        lambda c, _: [
            (e.type, getattr(e, "delta", None), getattr(e, "text", None))
            for e in c.audio.transcriptions.create(model="gpt-4o-transcribe", file=b"one two", stream=True)
        ],
        lambda events: events,
    ),
    "audio-translations-from-bytes": (
        lambda c, _: c.audio.translations.create(model="whisper-1", file=b"bonjour", prompt="French"),
        lambda r: (type(r).__name__, r.text),
    ),
    "files-create": (
        lambda c, _: c.files.create(file=("batch.jsonl", io.BytesIO(JSONL)), purpose="batch"),
        lambda r: (r.id, r.filename, r.bytes, r.purpose),
    ),
    "files-retrieve-content-delete": (
        lambda c, _: (
            c.files.retrieve("file-000000000001"),
            c.files.content("file-000000000001"),
            c.files.delete("file-000000000001"),
        ),
        lambda r: (r[0].filename, r[1].content, r[2].deleted),
    ),
    "batches-create-retrieve-cancel": (
        lambda c, _: (
            c.batches.create(
                input_file_id="file-000000000001",
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={"team": "a"},
            ),
            c.batches.retrieve("batch-000000000004"),
            c.batches.cancel("batch-000000000004"),
        ),
        lambda r: [(b.id, b.status, b.metadata) for b in r],
    ),
    "embeddings-default-format-is-base64-decoded-to-floats": (
        lambda c, _: c.embeddings.create(model="text-embedding-3-small", input=["a", "b"], dimensions=4),
        lambda r: [e.embedding for e in r.data],
    ),
    "embeddings-explicit-base64-stays-a-string": (
        lambda c, _: c.embeddings.create(
            model="text-embedding-3-small", input="a", dimensions=4, encoding_format="base64"
        ),
        lambda r: [e.embedding for e in r.data],
    ),
    "embeddings-explicit-float": (
        lambda c, _: c.embeddings.create(
            model="text-embedding-3-small", input="a", dimensions=4, encoding_format="float"
        ),
        lambda r: [e.embedding for e in r.data],
    ),
    "escape-hatch-post-and-get": (
        lambda c, _: (
            c.post(
                "/custom/things",
                cast_to=object,
                body={"x": 1},
                options={"params": {"q": "1"}, "headers": {"X-A": "b"}},
            ),
            c.get("/custom/things/1", cast_to=object, options={"params": {"expand": "all"}}),
        ),
        lambda r: r,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_endpoint_sends_and_returns_what_openai_does(name: str, tmp_path: pathlib.Path) -> None:
    call, project = CASES[name]
    theirs, their_api = run("openai", call, tmp_path, seed=3)
    ours, our_api = run("holyclient", call, tmp_path, seed=3)

    assert our_api.seen and [(s.method, s.path, s.query, s.body) for s in our_api.seen] == [
        (s.method, s.path, s.query, s.body) for s in their_api.seen
    ]
    # openai also labels body-less requests (DELETE, cancel) as JSON; without a body the type says nothing.
    assert [s.content_type for s in our_api.seen if s.body is not None] == [
        s.content_type for s in their_api.seen if s.body is not None
    ]
    streamed = [isinstance(s.body, dict) and s.body.get("stream") for s in our_api.seen]
    assert [s.accept for s, st in zip(our_api.seen, streamed, strict=True) if not st] == [
        s.accept for s, st in zip(their_api.seen, streamed, strict=True) if not st
    ]
    assert project(ours) == project(theirs)


@pytest.mark.parametrize("resource", ["files", "batches"])
def test_iterating_a_list_fetches_every_page_as_openai_does(resource: str, tmp_path: pathlib.Path) -> None:
    def call(client: Any, _: pathlib.Path) -> list[str]:
        if resource == "batches":
            for _i in range(3):
                client.batches.create(
                    input_file_id="file-000000000001", endpoint="/v1/embeddings", completion_window="24h"
                )
        page = getattr(client, resource).list(limit=2)
        return [item.id for item in page]

    theirs, their_api = run("openai", call, tmp_path, seed=5)
    ours, our_api = run("holyclient", call, tmp_path, seed=5)

    assert len(ours) in (3, 5) and ours == theirs
    assert [(s.path, s.query) for s in our_api.seen] == [(s.path, s.query) for s in their_api.seen]
    assert len([s for s in our_api.seen if s.method == "GET"]) >= 2  # more than one page was fetched
