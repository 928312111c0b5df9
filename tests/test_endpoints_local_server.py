"""The new endpoints against the local server, for what the differential tests cannot show: usage
accounting, holyclient's own errors, and the local server's answers to bad requests."""

from __future__ import annotations

import io
import pathlib

import httpx2
import pytest

import holyclient
from holyclient import AsyncClient, BadRequestError, Client, ConflictError, NotFoundError
from holyclient.testing import LocalServer
from support import KEY


@pytest.fixture(scope="module")
def server() -> LocalServer:
    with LocalServer() as server:
        yield server


@pytest.fixture
def client(server: LocalServer) -> Client:
    with Client(api_key=KEY, base_url=server.base_url, max_retries=0) as client:
        yield client


def test_a_streamed_response_is_charged_from_its_completed_event(client: Client) -> None:
    with client.responses.create(model="gpt-4o-mini", input="count me", stream=True) as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")

    totals = client.usage.snapshot().models["gpt-4o-mini"]
    assert text == "Echo: count me"
    assert totals.requests == 1 and totals.prompt_tokens > 0 and totals.completion_tokens == 4


async def test_async_response_and_completion_streams_are_charged(server: LocalServer) -> None:
    async with AsyncClient(api_key=KEY, base_url=server.base_url, max_retries=0) as client:
        stream = await client.responses.create(model="gpt-4o-mini", input="a", stream=True)
        events = [event async for event in stream]
        chunks = await client.completions.create(
            model="gpt-4o-mini", prompt="b", stream=True, stream_options={"include_usage": True}
        )
        texts = [c.choices[0].text async for c in chunks if c.choices]

    assert events[-1].type == "response.completed"
    assert "".join(texts) == "Echo: b"
    assert client.usage.snapshot().models["gpt-4o-mini"].requests == 2


def test_retrieving_a_batch_never_charges_its_usage_again() -> None:
    batch = {"id": "batch_1", "object": "batch", "status": "completed", "model": "gpt-4o-mini"}
    batch["usage"] = {"input_tokens": 1000, "output_tokens": 1000, "total_tokens": 2000}
    http = httpx2.Client(transport=httpx2.MockTransport(lambda _: httpx2.Response(200, json=batch)))
    with http, Client(api_key=KEY, base_url="http://127.0.0.1:9/v1", http_client=http) as client:
        for _ in range(3):
            retrieved = client.batches.retrieve("batch_1")

    assert retrieved.usage is not None and retrieved.usage.total_tokens == 2000
    assert client.usage.snapshot().models == {}


def test_speech_and_transcription_round_trip_through_files(client: Client, tmp_path: pathlib.Path) -> None:
    speech = client.audio.speech.create(model="tts-1", voice="alloy", input="round trip")
    target = tmp_path / "out.mp3"
    speech.stream_to_file(target)
    transcript = client.audio.transcriptions.create(model="whisper-1", file=target)

    assert target.read_bytes() == speech.content and speech.content.startswith(b"ID3")
    assert transcript.text.startswith("ID3round trip")


async def test_async_uploads_from_path_bytes_and_file_object(
    server: LocalServer, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"x": 1}\n')
    async with AsyncClient(api_key=KEY, base_url=server.base_url) as client:
        from_path = await client.files.create(file=path, purpose="batch")
        from_bytes = await client.files.create(file=b'{"y": 2}\n', purpose="batch")
        from_object = await client.files.create(file=io.BytesIO(b'{"z": 3}\n'), purpose="batch")
        content = await client.files.content(from_path.id)

    assert [from_path.filename, from_bytes.filename, from_object.filename] == ["a.jsonl", "upload", "upload"]
    assert content.content == b'{"x": 1}\n'


@pytest.mark.parametrize(
    ("file", "message"),
    [("notes.txt", "pathlib.Path"), (io.StringIO("text"), "binary mode"), (42, "got int")],
    ids=["str-path", "text-file", "int"],
)
def test_an_upload_that_is_not_bytes_path_or_binary_file_is_refused_before_sending(
    client: Client, file: object, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        client.files.create(file=file, purpose="batch")  # type: ignore[arg-type]


def test_local_server_answers_bad_file_and_batch_requests_as_the_api(client: Client) -> None:
    with pytest.raises(NotFoundError):
        client.files.retrieve("file-missing")
    with pytest.raises(BadRequestError, match="purpose"):
        client.files.create(file=b"x", purpose="nonsense")
    with pytest.raises(BadRequestError, match="line 1"):
        client.files.create(file=b"not json\n", purpose="batch")
    upload = client.files.create(file=b'{"custom_id": "1", "body": {"input": "a"}}\n', purpose="batch")
    batch = client.batches.create(
        input_file_id=upload.id, endpoint="/v1/moderations", completion_window="24h"
    )
    while batch.status != "completed":
        batch = client.batches.retrieve(batch.id)
    with pytest.raises(ConflictError):
        client.batches.cancel(batch.id)
    with pytest.raises(holyclient.APIStatusError) as info:
        client.put("/files", cast_to=object, body={})

    assert info.value.status_code == 405


def test_local_server_edits_and_varies_uploaded_images(client: Client) -> None:
    edit = client.images.edit(image=[("a.png", b"PNG"), ("b.png", b"PNG")], prompt="hat", n=2)
    variation = client.images.create_variation(image=b"PNG", response_format="url")

    assert len(edit.data or []) == 2 and all(image.b64_json for image in edit.data or [])
    assert variation.data and variation.data[0].url
    with pytest.raises(BadRequestError, match="image"):
        client.post("/images/edits", cast_to=object, body={"prompt": "x"}, files={"mask": b"PNG"})


def test_raw_embeddings_response_parses_to_floats_like_the_plain_call(client: Client) -> None:
    raw = client.embeddings.with_raw_response.create(model="text-embedding-3-small", input="a", dimensions=4)
    plain = client.embeddings.create(model="text-embedding-3-small", input="a", dimensions=4)

    assert raw.status_code == 200
    assert raw.parse().data[0].embedding == plain.data[0].embedding
    assert all(isinstance(x, float) for x in plain.data[0].embedding)


def test_escape_hatch_streams_typed_chunks_with_stream_cls(client: Client) -> None:
    from holyclient import Stream
    from holyclient.types import ChatCompletion, ChatCompletionChunk

    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "raw"}], "stream": True}
    chunks = client.post(
        "/chat/completions",
        cast_to=ChatCompletion,
        body=body,
        stream=True,
        stream_cls=Stream[ChatCompletionChunk],
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    model = client.get("/models/gpt-4o-mini", cast_to=holyclient.types.Model)

    assert text == "Echo: raw"
    assert model.id == "gpt-4o-mini" and model._request_id
    with pytest.raises(TypeError, match="unknown request option"):
        client.get("/models", cast_to=object, options={"header": {}})
    with pytest.raises(ValueError, match="relative to base_url"):  # the key never goes to another host
        client.get("https://elsewhere.example/v1/models", cast_to=object)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda c: c.responses.create(model="m", input="x", max_tokens=5), "max_output_tokens"),
        (lambda c: c.audio.transcriptions.create(model="m", file=b"x", languag="en"), "language"),
        (lambda c: c.files.list(limt=2), "limit"),
        (lambda c: c.responses.input_items.list("resp_1", ordr="asc"), "order"),
    ],
    ids=["responses", "multipart", "list-query", "input-items"],
)
def test_a_misspelled_argument_to_a_new_endpoint_is_refused_naming_the_right_one(
    client: Client, call: object, name: str
) -> None:
    with pytest.raises(TypeError, match=name):
        call(client)  # type: ignore[operator]
