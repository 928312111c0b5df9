"""Contract of the local server's answers: Prism as a validating proxy in front of ``LocalServer``.

``prism proxy --errors`` checks every request against the official spec, forwards it, and checks the
local server's answer too: a response that breaks the spec comes back as a 500 listing the violations.
So the app code below proves that what holyclient sends *and* what the local server answers (the
answers tests and demos rely on) both match the official API. Error answers are not exercised here: the
spec describes error bodies without their ``{"error": ...}`` envelope, which the real API sends.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

import holyclient
from contract.test_prism_contract import (
    OPERATIONS,
    PRISM_BIN,
    SPEC_GZ,
    _free_port,
    _stop,
    _wait_until_ready,
    served_spec,
)
from holyclient.testing import LocalServer

pytestmark = pytest.mark.contract

JSONL = b'{"custom_id": "1", "method": "POST", "url": "/v1/moderations", "body": {"input": "x"}}\n'


@pytest.fixture(scope="module")
def proxy_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("HOLYCLIENT_SKIP_CONTRACT") == "1":
        pytest.skip("HOLYCLIENT_SKIP_CONTRACT=1")
    binary = Path(os.environ.get("HOLYCLIENT_PRISM_BIN") or PRISM_BIN)
    if not binary.exists():
        pytest.fail(
            f"Stoplight Prism is not installed ({binary} is missing): run .ci/install-prism", pytrace=False
        )
    workdir = tmp_path_factory.mktemp("prism-proxy")
    spec_path = workdir / "openapi.json"
    spec_path.write_text(
        json.dumps(served_spec(json.loads(gzip.decompress(SPEC_GZ.read_bytes())), OPERATIONS))
    )
    log = workdir / "prism.log"
    port = _free_port()
    with LocalServer() as server, log.open("wb") as out:
        upstream = server.base_url.removesuffix("/v1")
        process = subprocess.Popen(
            [str(binary), "proxy", "-h", "127.0.0.1", "-p", str(port), str(spec_path), upstream, "--errors"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            base_url = f"http://127.0.0.1:{port}/v1"
            _wait_until_ready(process, base_url + "/models", log)
            yield base_url
        finally:
            _stop(process)


def _show_violations(response: httpx2.Response) -> None:
    """Fail with Prism's list of violations (its 500 body) rather than a bare ``Error code 500``."""
    if response.status_code == 500:
        response.read()
        pytest.fail(f"{response.request.method} {response.request.url.path}: {response.text}", pytrace=False)


@pytest.fixture
def client(proxy_base_url: str) -> Iterator[holyclient.Client]:
    with (
        httpx2.Client(event_hooks={"response": [_show_violations]}) as http,
        holyclient.Client(
            api_key="sk-proxy", base_url=proxy_base_url, http_client=http, max_retries=0
        ) as client,
    ):
        yield client


def test_local_server_answers_to_each_json_endpoint_match_the_spec(client: holyclient.Client) -> None:
    response = client.responses.create(model="gpt-4o-mini", input="hi", instructions="Be brief.")
    assert client.responses.retrieve(response.id).output_text == response.output_text
    assert [item.type for item in client.responses.input_items.list(response.id)] == ["message"]
    client.responses.delete(response.id)
    assert client.completions.create(model="gpt-3.5-turbo-instruct", prompt="hi", max_tokens=4).choices
    assert client.moderations.create(input=["fine", "violence"]).results[1].flagged
    assert client.images.generate(prompt="a cat", n=2).data
    assert client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    ).choices
    # floats: the spec types ``embedding`` as an array, though the API also sends base64 strings
    assert client.embeddings.create(model="text-embedding-3-small", input="hi", encoding_format="float").data
    assert [m.id for m in client.models.list()]


def test_local_server_audio_answers_match_the_spec(client: holyclient.Client) -> None:
    speech = client.audio.speech.create(model="tts-1", voice="alloy", input="hello")
    transcript = client.audio.transcriptions.create(model="whisper-1", file=("a.mp3", b"hello"))
    verbose = client.audio.transcriptions.create(
        model="whisper-1", file=("a.mp3", b"hello"), response_format="verbose_json"
    )
    translation = client.audio.translations.create(model="whisper-1", file=("a.mp3", b"bonjour"))

    assert speech.content.startswith(b"ID3")
    assert (transcript.text, verbose.text, translation.text) == ("hello", "hello", "bonjour")


def test_local_server_files_and_batch_answers_match_the_spec(client: holyclient.Client) -> None:
    upload = client.files.create(file=("in.jsonl", JSONL), purpose="batch")
    assert client.files.retrieve(upload.id).filename == "in.jsonl"
    assert upload.id in [f.id for f in client.files.list(purpose="batch")]
    batch = client.batches.create(
        input_file_id=upload.id, endpoint="/v1/moderations", completion_window="24h"
    )
    other = client.batches.create(
        input_file_id=upload.id, endpoint="/v1/moderations", completion_window="24h"
    )
    assert client.batches.cancel(other.id).status == "cancelling"
    while batch.status != "completed":
        batch = client.batches.retrieve(batch.id)
    assert (
        batch.output_file_id
    )  # its content is JSONL as octet-stream; the spec says JSON, so not checked here
    assert {b.id for b in client.batches.list()} >= {batch.id, other.id}
    assert client.files.delete(upload.id).deleted
